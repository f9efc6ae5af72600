/** What a refused binary is, from its magic number, so the 415 can name it. */

const SIGNATURES: { at?: number; bytes: string; name: string }[] = [
  { bytes: 'PK\x03\x04', name: 'ZIP archive (or an Office document)' },
  { bytes: '\x1f\x8b', name: 'gzip archive' },
  { bytes: 'BZh', name: 'bzip2 archive' },
  { bytes: '7z\xbc\xaf\x27\x1c', name: '7-Zip archive' },
  { bytes: 'Rar!', name: 'RAR archive' },
  { bytes: '\x7fELF', name: 'ELF executable' },
  { bytes: 'MZ', name: 'Windows executable' },
  { bytes: '\xcf\xfa\xed\xfe', name: 'Mach-O executable' },
  { bytes: '\xce\xfa\xed\xfe', name: 'Mach-O executable' },
  { bytes: '\xca\xfe\xba\xbe', name: 'Mach-O universal binary or Java class' },
  { bytes: '\0asm', name: 'WebAssembly module' },
  { bytes: 'II*\0', name: 'TIFF image' },
  { bytes: 'MM\0*', name: 'TIFF image' },
  { bytes: 'BM', name: 'BMP image' },
  { bytes: '\0\0\x01\0', name: 'ICO image' },
  { at: 8, bytes: 'WAVE', name: 'WAV audio' },
  { at: 8, bytes: 'AVI ', name: 'AVI video' },
  { at: 4, bytes: 'ftypheic', name: 'HEIC image' },
  { at: 4, bytes: 'ftypheix', name: 'HEIC image' },
  { at: 4, bytes: 'ftypmif1', name: 'HEIF image' },
  { at: 4, bytes: 'ftypavif', name: 'AVIF image' },
  { at: 4, bytes: 'ftyp', name: 'MP4/QuickTime video' },
  { bytes: 'ID3', name: 'MP3 audio' },
  { bytes: 'OggS', name: 'Ogg media' },
  { bytes: 'fLaC', name: 'FLAC audio' },
  { bytes: '\x1aE\xdf\xa3', name: 'Matroska/WebM video' },
  { bytes: 'SQLite format 3\0', name: 'SQLite database' },
  { bytes: '\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1', name: 'legacy Office document' },
  { bytes: 'wOFF', name: 'WOFF font' },
  { bytes: 'wOF2', name: 'WOFF2 font' },
  { bytes: '\xfe\xff', name: 'UTF-16 text' },
  { bytes: '\xff\xfe', name: 'UTF-16 text' },
];

export function nameBinary(head: Buffer): string {
  for (const sig of SIGNATURES) {
    const at = sig.at ?? 0;
    if (head.toString('latin1', at, at + sig.bytes.length) === sig.bytes) return sig.name;
  }
  return 'binary data of an unknown type';
}
