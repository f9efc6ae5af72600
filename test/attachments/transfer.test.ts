import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Aimock } from '../helpers/aimock.js';
import { api } from '../helpers/backend-process.js';
import { send } from '../helpers/raw-http.js';
import { RecordingRelay } from '../helpers/recording-relay.js';
import { makePng, UTF8_CODE } from '../helpers/test-files.js';
import { ChatRig, model } from '../chat/chat-harness.js';

/** DESIGN 7 + 8: export, import and fork carry a session's files, byte for byte. */
describe('attachments travel with export, import and fork', () => {
  let mock: Aimock;
  let relay: RecordingRelay;
  let rig: ChatRig;
  const png = makePng(24, 16, (x, y) => [x * 10, y * 12, 200]);
  const code = Buffer.from(UTF8_CODE);
  let sid = '';
  let ids: { png: string; code: string } = { png: '', code: '' };

  before(async () => {
    mock = await Aimock.start([
      { match: { userMessage: 'look at these' }, response: { content: 'A chart and some code.' } },
      { match: { userMessage: 'and again' }, response: { content: 'Still a chart.' } },
    ]);
    relay = await RecordingRelay.start(mock.url);
    rig = await ChatRig.start([{ id: 'c', type: 'compat', base_url: `${relay.url}/v1`, models: [model('m1', { supports_vision: true })] }]);
    sid = await rig.newSession('With files');
    ids = { png: (await upload(sid, png, 'chart.png')).id, code: (await upload(sid, code, 'fib.ts')).id };
    // Uploaded but never sent: not part of the conversation, so not exported or forked.
    await upload(sid, Buffer.from('scratch notes'), 'unsent.txt');
    const watch = await rig.watch();
    const { turn_id } = await rig.ok('POST', `${rig.sessionsPath(sid)}/messages`, {
      content: 'look at these',
      attachments: [ids.png, ids.code],
    });
    assert.equal((await watch.end(turn_id)).type, 'turn.completed');
    watch.close();
  });
  after(async () => {
    await rig?.proc.stop();
    rig?.proc.cleanup();
    await relay?.stop();
    await mock?.stop();
  });

  async function upload(session: string, body: Buffer, name: string): Promise<any> {
    const res = await send(rig.proc.port, {
      method: 'POST',
      path: `${rig.sessionsPath(session)}/attachments`,
      headers: { authorization: `Bearer ${rig.credential}`, 'x-filename': encodeURIComponent(name) },
      body,
    });
    assert.equal(res.status, 201, res.text);
    return res.json;
  }
  async function served(session: string, id: string): Promise<Buffer | null> {
    const res = await fetch(`${rig.proc.url}${rig.sessionsPath(`${session}/attachments/${id}`)}`, {
      headers: { authorization: `Bearer ${rig.credential}` },
    });
    return res.status === 200 ? Buffer.from(await res.arrayBuffer()) : null;
  }
  const importRaw = (raw: string) =>
    api(rig.proc.url, 'POST', `${rig.sessionsPath()}/import`, {
      credential: rig.credential,
      rawBody: raw,
      headers: { 'content-type': 'application/json' },
    });
  const sessionCount = async () => (await rig.ok('GET', rig.sessionsPath())).sessions.length;

  it('the JSON export carries the bytes of every file the messages refer to, and imports back usable', async () => {
    const exported = await rig.ok('GET', `${rig.sessionsPath(sid)}/export?format=json`);
    const byName = new Map<string, any>(exported.attachments.map((a: any) => [a.name, a]));
    assert.deepEqual([...byName.keys()].sort(), ['chart.png', 'fib.ts'], 'the unsent upload is not exported');
    assert.deepEqual(Buffer.from(byName.get('chart.png').data_base64, 'base64'), png);
    assert.deepEqual(Buffer.from(byName.get('fib.ts').data_base64, 'base64'), code);
    assert.equal(byName.get('chart.png').sha256, ids.png);
    assert.equal(byName.get('chart.png').mime, 'image/png');

    const res = await importRaw(JSON.stringify(exported));
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const copy = res.body.sessions[0].id as string;
    assert.deepEqual(await served(copy, ids.png), png);
    assert.deepEqual(await served(copy, ids.code), code);
    const dir = path.join(rig.proc.dataDir, 'workspaces', rig.workspaceId, 'sessions', copy, 'attachments');
    assert.equal(statSync(path.join(dir, ids.png)).mode & 0o777, 0o600);
    // The imported chat goes on with its files: the model sees the image again.
    relay.clear();
    const watch = await rig.watch();
    const { turn_id } = await rig.ok('POST', `${rig.sessionsPath(copy)}/messages`, { content: 'and again' });
    assert.equal((await watch.end(turn_id)).type, 'turn.completed');
    watch.close();
    const sent = JSON.stringify(relay.last('/chat/completions').json.messages);
    assert.ok(sent.includes(`data:image/png;base64,${png.toString('base64')}`), 'the imported image reaches the provider');
  });

  it('an export whose file was changed, or that lacks a file a message needs, is refused and nothing is created', async () => {
    const exported = await rig.ok('GET', `${rig.sessionsPath(sid)}/export?format=json`);
    const before = await sessionCount();
    const changed = structuredClone(exported);
    const k = changed.attachments.findIndex((a: any) => a.name === 'fib.ts');
    changed.attachments[k].data_base64 = Buffer.from(UTF8_CODE.replace('fib', 'fob')).toString('base64');
    const bad = await importRaw(JSON.stringify(changed));
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.field, `attachments[${k}].data_base64`);

    const missing = { ...structuredClone(exported), attachments: [] };
    const gone = await importRaw(JSON.stringify(missing));
    assert.equal(gone.status, 400);
    const at = exported.messages.findIndex((m: any) => m.blocks?.some((b: any) => b.type === 'image'));
    assert.equal(gone.body.error.field, `messages[${at}].blocks`);
    assert.match(gone.body.error.message, /chart\.png/);

    // Bytes that hash right but are not a type attachments take (HTML) are refused like an upload.
    const html = Buffer.from('<!doctype html><script>alert(1)</script>');
    const hostile = structuredClone(exported);
    const id = createHash('sha256').update(html).digest('hex');
    hostile.attachments.push({ id, name: 'page.png', mime: 'image/png', sha256: id, data_base64: html.toString('base64') });
    hostile.messages[at].blocks.push({ type: 'image', attachment_id: id, mime: 'image/png', name: 'page.png' });
    const preview = await api(rig.proc.url, 'POST', `${rig.sessionsPath()}/import?dry_run=1`, {
      credential: rig.credential,
      rawBody: JSON.stringify(hostile),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(preview.status, 400, 'the preview refuses what the import would');
    assert.equal(preview.body.error.field, `attachments[${hostile.attachments.length - 1}]`);
    const refused = await importRaw(JSON.stringify(hostile));
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.equal(refused.body.error.field, `attachments[${hostile.attachments.length - 1}]`);
    assert.equal(await sessionCount(), before, 'no session was created');
    const root = path.join(rig.proc.dataDir, 'workspaces', rig.workspaceId, 'sessions');
    assert.deepEqual(
      readdirSync(root).filter((n) => n.startsWith('.tmp')),
      [],
      'no staging folder is left behind',
    );
  });

  it('a fork copies the files of the path it holds', async () => {
    const { messages } = await rig.session(sid);
    const res = await rig.ok('POST', `${rig.sessionsPath(sid)}/fork`, { message_id: messages.at(-1).id });
    assert.deepEqual(await served(res.id, ids.png), png);
    assert.deepEqual(await served(res.id, ids.code), code);
    const dir = path.join(rig.proc.dataDir, 'workspaces', rig.workspaceId, 'sessions', res.id, 'attachments');
    assert.equal(existsSync(dir), true);
    assert.equal(
      readdirSync(dir).some((n) => readFileSync(path.join(dir, n)).toString() === 'scratch notes'),
      false,
      'an upload no message refers to stays behind',
    );
  });

  it('the Markdown export links each file and lists them after the chat', async () => {
    const md = await api(rig.proc.url, 'GET', `${rig.sessionsPath(sid)}/export?format=md`, { credential: rig.credential });
    assert.equal(md.status, 200);
    const text = md.body as string;
    const imageLink = `![chart.png](<attachments/${ids.png.slice(0, 12)}-chart.png>)`;
    assert.ok(text.includes(imageLink), text);
    assert.ok(text.includes(`[fib.ts](<attachments/${ids.code.slice(0, 12)}-fib.ts>)`), text);
    const list = text.slice(text.indexOf('## Attachments'));
    assert.ok(text.indexOf('## Attachments') > text.indexOf(imageLink));
    assert.match(list, new RegExp(`chart\\.png \\(image/png, sha256 ${ids.png}\\)`));
    assert.match(list, /fib\.ts \(text\/plain/);
  });
});
