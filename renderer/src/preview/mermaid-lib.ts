// The Mermaid library as text, fetched from the app's own build on the first diagram and handed to
// the diagram host frame (diagram-host.ts), which runs it: the frame itself makes no request, and
// the SVG Mermaid draws never enters the app's page. The single-file build is used because the frame
// cannot load chunks.
import mermaidUrl from 'mermaid/dist/mermaid.min.js?url';

let lib: Promise<string> | null = null;

export function mermaidSource(): Promise<string> {
  lib ??= fetch(mermaidUrl).then(async (res) => {
    if (!res.ok) throw new Error(`Mermaid did not load (HTTP ${res.status})`);
    return res.text();
  });
  lib.catch(() => (lib = null));
  return lib;
}
