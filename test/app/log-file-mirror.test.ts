import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { LogBuffer } from '../../app/logs/log-buffer.js';
import { LogFileMirror } from '../../app/logs/log-file-mirror.js';
import { tempDir } from '../helpers/backend-process.js';

const fileLines = (file: string) => readFileSync(file, 'utf8').split('\n').slice(0, -1);

describe('log file mirror', () => {
  const dir = tempDir('svc-app-log-');
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('holds the most recent 2000 lines after 10 000, never growing past 2000 + slack', async () => {
    const file = path.join(dir, 'logs', 'backend.log');
    const mirror = new LogFileMirror(file, { flushDelayMs: 1 });
    const log = new LogBuffer({ mirror });
    let largest = 0;
    for (let i = 1; i <= 10_000; i++) {
      log.write(i % 3 ? 'stdout' : 'stderr', `line ${i}\n`);
      if (i % 700 === 0) {
        await mirror.flush();
        largest = Math.max(largest, fileLines(file).length);
      }
    }
    await mirror.flush();
    const open = fileLines(file);
    assert.ok(open.length >= 2000 && open.length <= 2500, `file holds ${open.length} lines`);
    assert.ok(largest <= 2500, `file grew to ${largest} lines`);
    await log.close();
    const lines = fileLines(file);
    assert.equal(lines.length, 2000);
    assert.match(lines[0], /^\d{4}-\d\d-\d\dT[\d:.]+Z stderr line 8001$/);
    assert.match(lines[1999], / stdout line 10000$/);
    assert.match(lines[1], / stdout line 8002$/);
    assert.equal(mirror.lastError, undefined);
  });

  it('keeps exactly the newest lines, once each, after a burst larger than the file', async () => {
    const file = path.join(dir, 'burst.log');
    const mirror = new LogFileMirror(file, { flushDelayMs: 1 });
    const log = new LogBuffer({ mirror });
    for (let i = 1; i <= 10_000; i++) log.write('stdout', `line ${i}\n`);
    await mirror.flush();
    for (let i = 10_001; i <= 10_300; i++) log.write('stdout', `line ${i}\n`);
    await log.close();
    const numbers = fileLines(file).map((l) => Number(/line (\d+)$/.exec(l)![1]));
    assert.deepEqual(
      numbers,
      Array.from({ length: 2000 }, (_, i) => 8301 + i),
    );
  });

  it("keeps the previous session's file aside instead of appending to it", async () => {
    const file = path.join(dir, 'again.log');
    writeFileSync(file, 'old session\n');
    const mirror = new LogFileMirror(file, { flushDelayMs: 1 });
    const log = new LogBuffer({ mirror });
    log.write('stdout', 'new session\n');
    await log.close();
    assert.deepEqual(
      fileLines(file).map((l) => l.split(' ').slice(2).join(' ')),
      ['new session'],
    );
    assert.equal(readFileSync(mirror.previousFile, 'utf8'), 'old session\n');
  });
});
