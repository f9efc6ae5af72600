import type { FileHandle } from 'node:fs/promises';

/** Random access to the bytes being checked: a file on disk (uploads) or a buffer (tests). */
export interface ByteSource {
  readonly size: number;
  /** Up to `length` bytes from `offset`; shorter at the end of the data. */
  read(offset: number, length: number): Promise<Buffer>;
}

export function bufferSource(data: Uint8Array): ByteSource {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return {
    size: buf.length,
    read: (offset, length) => Promise.resolve(buf.subarray(Math.max(0, offset), Math.max(0, offset) + Math.max(0, length))),
  };
}

export function fileSource(handle: FileHandle, size: number): ByteSource {
  return {
    size,
    async read(offset, length) {
      const want = Math.max(0, Math.min(length, size - offset));
      if (want === 0 || offset < 0) return Buffer.alloc(0);
      const buf = Buffer.alloc(want);
      const { bytesRead } = await handle.read(buf, 0, want, offset);
      return buf.subarray(0, bytesRead);
    },
  };
}
