// The artifact preview page's contract (docs/artifacts.md), one home for the backend, which serves
// the page to browsers, and the desktop app, which serves it from its own protocol and opens it in
// the full-size preview window: both import the policy from here, so there is one policy.
//
// The page (renderer/public/preview.html) runs code a model wrote, so no request of any kind
// (default-src 'none', no form-action, no base), inline script and style only, images from
// data:/blob:, and a sandbox that gives it an opaque origin even when opened on its own (the
// desktop full-size window, or a browser tab). Only the app's own pages may frame it.

/** The page's file name in the built renderer folder. */
export const PREVIEW_FILE = 'preview.html';

/** Its path on the backend and under app://renderer/. */
export const PREVIEW_PATH = `/${PREVIEW_FILE}`;

export const PREVIEW_CSP: string = [
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
