import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Aimock } from '../helpers/aimock.js';
import { send } from '../helpers/raw-http.js';
import { RecordingRelay } from '../helpers/recording-relay.js';
import { makePdf, makePng, UTF8_CODE } from '../helpers/test-files.js';
import { ChatRig, deltaText, model } from '../chat/chat-harness.js';

const PHRASE = 'The llama census of 2026';
const QUESTION = 'describe these files please';

/** What the three protocols must carry for a PNG, a PDF and a text file (facts: attachments per protocol). */
describe('messages with attachments reach each protocol in its own shape', () => {
  let mock: Aimock;
  let relay: RecordingRelay;
  let rig: ChatRig;
  const png = makePng(40, 30, (x, y) => [x * 6, y * 8, 90]);
  const pdf = makePdf(PHRASE);
  const b64 = (b: Buffer) => b.toString('base64');
  const fileBlock = `<file name="fib &#34;v2&#34;.ts">\n${UTF8_CODE}\n</file>`;

  before(async () => {
    mock = await Aimock.start([{ match: { userMessage: 'describe' }, response: { content: 'A chart, a census and some code.' } }]);
    relay = await RecordingRelay.start(mock.url);
    const models = [model('m1', { supports_vision: true }), model('blind')];
    rig = await ChatRig.start([
      { id: 'c', type: 'compat', base_url: `${relay.url}/v1`, models },
      { id: 'n', type: 'native', base_url: relay.url, models },
      { id: 'r', type: 'responsemode', base_url: `${relay.url}/v1`, models },
    ]);
  });
  after(async () => {
    await rig?.proc.stop();
    rig?.proc.cleanup();
    await relay?.stop();
    await mock?.stop();
  });

  async function upload(sid: string, body: Buffer, name: string): Promise<any> {
    const res = await send(rig.proc.port, {
      method: 'POST',
      path: `${rig.sessionsPath(sid)}/attachments`,
      headers: { authorization: `Bearer ${rig.credential}`, 'x-filename': encodeURIComponent(name) },
      body,
    });
    assert.equal(res.status, 201, res.text);
    return res.json;
  }

  async function turnWithFiles(provider: string) {
    await rig.setProfile({ model: `${provider}:m1` });
    const sid = await rig.newSession();
    const ids = [
      (await upload(sid, png, 'chart.png')).id,
      (await upload(sid, pdf, 'census.pdf')).id,
      (await upload(sid, Buffer.from(UTF8_CODE), 'fib "v2".ts')).id,
    ];
    relay.clear();
    const watch = await rig.watch();
    try {
      const { turn_id } = await rig.ok('POST', `${rig.sessionsPath(sid)}/messages`, { content: QUESTION, attachments: ids });
      const end = await watch.end(turn_id);
      assert.equal(end.type, 'turn.completed', JSON.stringify(end));
      assert.equal(deltaText(watch.frames(turn_id)), 'A chart, a census and some code.');
    } finally {
      watch.close();
    }
    return { sid, ids };
  }

  it('compat: image_url data URL, the PDF as extracted text, the code wrapped with its name', async () => {
    await turnWithFiles('c');
    const body = relay.last('/chat/completions').json;
    const user = body.messages.at(-1);
    assert.equal(user.role, 'user');
    assert.deepEqual(user.content, [
      { type: 'image_url', image_url: { url: `data:image/png;base64,${b64(png)}` } },
      { type: 'text', text: `<file name="census.pdf">\n${PHRASE}\n</file>` },
      { type: 'text', text: fileBlock },
      { type: 'text', text: QUESTION },
    ]);
  });

  it('native: image and document blocks with base64 sources', async () => {
    await turnWithFiles('n');
    const body = relay.last('/messages').json;
    const user = body.messages.at(-1);
    assert.deepEqual(user.content, [
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: b64(png) } },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: b64(pdf) }, title: 'census.pdf' },
      { type: 'text', text: fileBlock },
      { type: 'text', text: QUESTION },
    ]);
  });

  it('responsemode: input_image, input_file and input_text parts; history keeps the blocks after a reload', async () => {
    const { sid, ids } = await turnWithFiles('r');
    const body = relay.last('/responses').json;
    assert.deepEqual(body.input.at(-1), {
      type: 'message',
      role: 'user',
      content: [
        { type: 'input_image', image_url: `data:image/png;base64,${b64(png)}` },
        { type: 'input_file', filename: 'census.pdf', file_data: `data:application/pdf;base64,${b64(pdf)}` },
        { type: 'input_text', text: fileBlock },
        { type: 'input_text', text: QUESTION },
      ],
    });
    const session = await rig.session(sid);
    const user = session.messages.find((m: any) => m.role === 'user');
    assert.deepEqual(user.blocks, [
      { type: 'image', attachment_id: ids[0], mime: 'image/png', name: 'chart.png' },
      { type: 'file', attachment_id: ids[1], mime: 'application/pdf', name: 'census.pdf' },
      { type: 'file', attachment_id: ids[2], mime: 'text/plain', name: 'fib "v2".ts' },
      { type: 'text', text: QUESTION },
    ]);
    assert.equal(session.title, QUESTION);
  });

  it('an image for a model without vision is 400 model_lacks_vision before any turn; text files are fine', async () => {
    await rig.setProfile({ model: 'c:blind' });
    const sid = await rig.newSession();
    const image = await upload(sid, png, 'chart.png');
    const doc = await upload(sid, pdf, 'census.pdf');
    const code = await upload(sid, Buffer.from(UTF8_CODE), 'fib.ts');
    relay.clear();
    for (const id of [image.id, doc.id]) {
      const res = await rig.call('POST', `${rig.sessionsPath(sid)}/messages`, { content: QUESTION, attachments: [code.id, id] });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, 'model_lacks_vision');
      assert.match(res.body.error.message, /c:blind/);
      assert.equal(res.body.error.field, 'attachments[1]');
    }
    assert.equal((await rig.session(sid)).message_count, 0, 'nothing stored');
    assert.equal(relay.requests.length, 0, 'no provider request');
    const { end } = await (async () => {
      const watch = await rig.watch();
      try {
        const { turn_id } = await rig.ok('POST', `${rig.sessionsPath(sid)}/messages`, { content: QUESTION, attachments: [code.id] });
        return { end: await watch.end(turn_id) };
      } finally {
        watch.close();
      }
    })();
    assert.equal(end.type, 'turn.completed');
    assert.equal(
      relay.last('/chat/completions').json.messages.at(-1).content,
      `<file name="fib.ts">\n${UTF8_CODE}\n</file>\n\n${QUESTION}`,
    );
  });

  it('a PDF of more than 100 pages is refused for a native model before any turn, naming the limit', async () => {
    await rig.setProfile({ model: 'n:m1' });
    const sid = await rig.newSession();
    const long = await upload(sid, makePdf(PHRASE, 101), 'report.pdf');
    assert.equal(long.pages, 101);
    relay.clear();
    const res = await rig.call('POST', `${rig.sessionsPath(sid)}/messages`, { content: QUESTION, attachments: [long.id] });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.error.field, 'attachments[0]');
    assert.match(res.body.error.message, /report\.pdf has 101 pages; n:m1 .* at most 100 pages/);
    assert.equal((await rig.session(sid)).message_count, 0, 'nothing stored');
    assert.equal(relay.requests.length, 0, 'no provider request');
  });

  it('11 attachments, unknown ids and an empty message are refused naming the field', async () => {
    await rig.setProfile({ model: 'c:m1' });
    const sid = await rig.newSession();
    const code = await upload(sid, Buffer.from(UTF8_CODE), 'fib.ts');
    const eleven = await rig.call('POST', `${rig.sessionsPath(sid)}/messages`, { content: 'x', attachments: Array(11).fill(code.id) });
    assert.equal(eleven.status, 400);
    assert.equal(eleven.body.error.field, 'attachments');
    assert.match(eleven.body.error.message, /at most 10/);
    const unknown = await rig.call('POST', `${rig.sessionsPath(sid)}/messages`, { content: 'x', attachments: [code.id, 'f'.repeat(64)] });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error.field, 'attachments[1]');
    const empty = await rig.call('POST', `${rig.sessionsPath(sid)}/messages`, { content: '  ' });
    assert.equal(empty.status, 400);
    assert.equal(empty.body.error.field, 'content');
    // Another session's attachment is not this session's.
    const other = await rig.newSession();
    const foreign = await rig.call('POST', `${rig.sessionsPath(other)}/messages`, { content: 'x', attachments: [code.id] });
    assert.equal(foreign.status, 400);
    assert.equal((await rig.session(sid)).message_count, 0);
  });
});
