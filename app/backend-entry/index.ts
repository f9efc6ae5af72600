// The app's backend entry (bundled into one file by Vite), run by the app in an Electron utility
// process and by `npm run backend` with plain Node. ELECTRON_RUN_AS_NODE is never needed for it, and
// deleting one inherited from the environment keeps it out of every process the backend spawns (an
// Electron-based tool server would otherwise start as plain Node).
delete process.env.ELECTRON_RUN_AS_NODE;
await import('../../backend/main.js');
