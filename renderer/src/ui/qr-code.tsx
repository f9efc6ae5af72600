import qrcode from 'qrcode-generator';
import { useMemo } from 'react';

/** The QR quiet zone, in modules: scanners need it to find the code. */
const QUIET = 4;

/**
 * `text` as a QR code drawn by React as one SVG path (no HTML string, no canvas): dark modules on a
 * white square whatever the theme, since phone cameras read dark-on-light.
 */
export function QrCode({ text, label, size = 200 }: { text: string; label: string; size?: number }) {
  const { count, path } = useMemo(() => {
    const qr = qrcode(0, 'M');
    qr.addData(text, 'Byte');
    qr.make();
    const n = qr.getModuleCount();
    let d = '';
    for (let r = 0; r < n; r++) {
      for (let c = 0; c < n; c++) if (qr.isDark(r, c)) d += `M${c + QUIET} ${r + QUIET}h1v1h-1z`;
    }
    return { count: n + 2 * QUIET, path: d };
  }, [text]);
  return (
    <svg
      className="qr-code"
      role="img"
      aria-label={label}
      width={size}
      height={size}
      viewBox={`0 0 ${count} ${count}`}
      shapeRendering="crispEdges"
      data-modules={count - 2 * QUIET}
    >
      <rect width={count} height={count} fill="#fff" />
      <path d={path} fill="#000" />
    </svg>
  );
}
