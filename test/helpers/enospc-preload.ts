// Loaded into a backend with NODE_OPTIONS=--import: while the file named by SERVICE_TEST_ENOSPC_FLAG
// exists, every file write fails as on a full disk (ENOSPC), a write of a buffer after storing half
// of it, as the kernel does when the space runs out mid-write.
import { existsSync, promises as fs } from 'node:fs';

const flag = process.env.SERVICE_TEST_ENOSPC_FLAG ?? '';
const full = () => flag !== '' && existsSync(flag);
const enospc = (syscall: string) =>
  Object.assign(new Error(`ENOSPC: no space left on device, ${syscall}`), { code: 'ENOSPC', errno: -28, syscall });

const probe = await fs.open(process.execPath, 'r');
const proto = Object.getPrototypeOf(probe) as Record<string, (...args: any[]) => Promise<any>>;
await probe.close();

const write = proto.write;
proto.write = async function (this: unknown, data: unknown, ...rest: unknown[]) {
  if (!full()) return write.call(this, data, ...rest);
  if (Buffer.isBuffer(data) && data.length > 1) await write.call(this, data.subarray(0, data.length >> 1));
  throw enospc('write');
};
for (const name of ['writeFile', 'appendFile', 'writev']) {
  const original = proto[name];
  proto[name] = async function (this: unknown, ...args: unknown[]) {
    if (full()) throw enospc('write');
    return original.apply(this, args);
  };
}
for (const name of ['writeFile', 'appendFile'] as const) {
  const original = fs[name] as (...args: unknown[]) => Promise<void>;
  (fs as unknown as Record<string, unknown>)[name] = async (...args: unknown[]) => {
    if (full()) throw enospc('write');
    return original(...args);
  };
}
