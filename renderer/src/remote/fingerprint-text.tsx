/**
 * A SHA-256 fingerprint laid out for comparing by eye: `SHA256:` then four rows of eight pairs, the
 * same characters as the backend's `tls fingerprint:` line. Screen readers get the one-line form.
 */
export function FingerprintText({ value }: { value: string }) {
  const pairs = value.replace(/^SHA256:/, '').split(':');
  const rows: string[] = [];
  for (let i = 0; i < pairs.length; i += 8) rows.push(pairs.slice(i, i + 8).join(':'));
  return (
    <code className="fingerprint-block" data-fingerprint={value}>
      <span className="sr-only">{value}</span>
      <span aria-hidden="true">SHA256:</span>
      {rows.map((row, i) => (
        <span key={i} aria-hidden="true">
          {row}
          {i < rows.length - 1 ? ':' : ''}
        </span>
      ))}
    </code>
  );
}
