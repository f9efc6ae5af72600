import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// One bundle for the desktop shell (app://renderer) and the browser (served by the backend at /):
// relative asset paths work under both.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  plugins: [
    react(),
    // The dev server's React Refresh preamble is an inline script, which the CSP <meta> forbids:
    // the meta is for the built bundle only.
    {
      name: 'csp-meta-build-only',
      apply: 'serve',
      transformIndexHtml: (html) => html.replace(/\s*<meta\s+http-equiv="Content-Security-Policy"[^>]*>/, ''),
    },
  ],
  build: {
    outDir: '../dist/renderer',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
  },
});
