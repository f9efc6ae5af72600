// The app's backend entry (bundled into one file by Vite). Electron's binary runs it as Node only
// because the supervisor set ELECTRON_RUN_AS_NODE=1; deleting it before the backend loads keeps it
// out of every process the backend spawns (an Electron-based tool server would start as plain Node).
delete process.env.ELECTRON_RUN_AS_NODE;
await import('../../backend/main.js');
