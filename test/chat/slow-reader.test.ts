import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Socket } from 'node:net';
import { ScriptedSse } from '../helpers/scripted-sse.js';
import { openWs, type WsOpen } from '../helpers/ws-client.js';
import { ChatRig, model } from './chat-harness.js';
import { compat } from './scripts.js';

const CAP = 1024 * 1024;
const DROPPED = /^ws: closed a connection that stopped reading/;

/** A client whose application stopped reading: its TCP socket is paused, the kernel buffers fill. */
async function stalled(rig: ChatRig): Promise<WsOpen> {
  const conn = await openWs(`${rig.proc.url.replace('http', 'ws')}/ws?service_credential=${encodeURIComponent(rig.credential)}`);
  await conn.next((m) => m.type === 'hello');
  (conn.socket as unknown as { _socket: Socket })._socket.pause();
  return conn;
}

describe('a WebSocket client that stops reading', () => {
  let fake: ScriptedSse;
  let rig: ChatRig;
  /** The same with a keepalive of 500 ms (the other keeps the default 30 s, so only the queue cap drops). */
  let quick: ChatRig;
  before(async () => {
    fake = await ScriptedSse.start();
    const providers = [{ id: 'c', type: 'compat' as const, base_url: `${fake.url}/v1`, models: [model('m1')] }];
    [rig, quick] = await Promise.all([
      ChatRig.start(providers, { start: { env: { SERVICE_WS_MAX_BUFFERED_BYTES: String(CAP) } } }),
      ChatRig.start(providers, { start: { env: { SERVICE_WS_KEEPALIVE_MS: '500' } } }),
    ]);
  });
  after(async () => {
    for (const r of [rig, quick]) {
      await r?.proc.stop();
      r?.proc.cleanup();
    }
    await fake?.stop();
  });

  it('is dropped during a long turn, memory stays bounded, the others get every frame', async () => {
    const slow = await stalled(rig);
    const from = rig.proc.lines.length;
    const piece = 'x'.repeat(8 * 1024);
    // 24 MiB of answer, as fast as the provider can stream it.
    fake.next({ chunks: [...Array.from({ length: 3072 }, () => compat.text(piece)), compat.stop(), compat.usage(5, 2), compat.done()] });
    const sid = await rig.newSession();
    const { end, frames } = await rig.turn(sid, 'a long answer please', 60_000);
    assert.equal(end.type, 'turn.completed');
    assert.equal(frames.filter((f) => f.type === 'turn.delta').length, 3072, 'the reading client got every delta');
    // Dropped once its queue reached the cap: what it did not read is never held beyond that.
    const line = await rig.proc.waitForLine(
      /^ws: closed a connection that stopped reading \(([\d.]+) MiB waiting to be sent\)$/,
      5000,
      from,
    );
    assert.ok(Number(line[1]) <= CAP / 1048576, line[0]);
    slow.socket.terminate();
  });

  it('a client that answers with unsolicited pongs but never reads is dropped', async () => {
    const slow = await stalled(quick);
    const from = quick.proc.lines.length;
    // Pongs written without reading anything: they prove nothing about reading.
    const timer = setInterval(() => slow.socket.pong(), 50);
    try {
      await quick.proc.waitForLine(DROPPED, 8000, from);
    } finally {
      clearInterval(timer);
      slow.socket.terminate();
    }
    // A client that reads stays connected through several keepalive rounds.
    const reader = await quick.watch();
    await new Promise((r) => setTimeout(r, 2000));
    assert.equal(reader.conn.socket.readyState, reader.conn.socket.OPEN);
    reader.close();
  });

  it('a resume flood of a finished turn from a client that does not read is cut off', async () => {
    fake.next({ chunks: [...Array.from({ length: 256 }, () => compat.text('y'.repeat(8 * 1024))), compat.stop(), compat.done()] });
    const sid = await rig.newSession();
    const { turnId } = await rig.turn(sid, 'two MiB please');
    const slow = await stalled(rig);
    const from = rig.proc.lines.length;
    for (let i = 0; i < 40; i++) slow.socket.send(JSON.stringify({ type: 'resume', turn_id: turnId, after_seq: 0 }));
    await rig.proc.waitForLine(DROPPED, 5000, from);
    slow.socket.terminate();
  });
});
