// The artifact preview page (renderer/public/preview.html) gets a policy of its own: it runs code a
// model wrote, so no request of any kind (default-src 'none', no form-action, no base), inline
// script and style only, images from data:/blob:, and a sandbox that gives it an opaque origin even
// when opened on its own. Only the app's own pages may frame it. The desktop protocol handler sends
// the same policy (app/main/renderer-files.ts; a test keeps the two equal).

export const PREVIEW_PATH = '/preview.html';

export const PREVIEW_CSP = [
  "default-src 'none'",
  "script-src 'unsafe-inline'",
  "style-src 'unsafe-inline'",
  'img-src data: blob:',
  'font-src data:',
  'media-src data: blob:',
  "form-action 'none'",
  "base-uri 'none'",
  "frame-ancestors 'self'",
  'sandbox allow-scripts',
].join('; ');
