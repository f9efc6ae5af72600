import { sse } from '../helpers/scripted-sse.js';

/** Stream pieces of each protocol, for the scripted provider. */
export const compat = {
  delta: (delta: Record<string, unknown>, finish: string | null = null) =>
    sse.data({ id: 'c1', model: 'm1', choices: [{ index: 0, delta, finish_reason: finish }] }),
  text: (text: string) => compat.delta({ content: text }),
  stop: (reason = 'stop') => compat.delta({}, reason),
  usage: (prompt: number, completion: number, choices: unknown = []) =>
    sse.data({
      id: 'c1',
      model: 'm1',
      choices,
      usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
    }),
  done: () => sse.data('[DONE]'),
  reply: (text: string) => [compat.text(text), compat.stop(), compat.usage(5, 2), compat.done()],
};

export const native = {
  start: (input = 10) =>
    sse.event('message_start', {
      type: 'message_start',
      message: { id: 'msg1', model: 'm1', usage: { input_tokens: input, output_tokens: 1 } },
    }),
  textBlock: (index: number, text: string) => [
    sse.event('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }),
    sse.event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text } }),
    sse.event('content_block_stop', { type: 'content_block_stop', index }),
  ],
  ping: () => sse.event('ping', { type: 'ping' }),
  error: (type: string, message: string) => sse.event('error', { type: 'error', error: { type, message } }),
  end: (output = 5, reason = 'end_turn') => [
    sse.event('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: reason, stop_sequence: null },
      usage: { output_tokens: output },
    }),
    sse.event('message_stop', { type: 'message_stop' }),
  ],
  reply: (text: string) => [native.start(), ...native.textBlock(0, text), ...native.end()],
};

export const responses = {
  created: () => sse.event('response.created', { type: 'response.created', response: { id: 'r1', status: 'in_progress' } }),
  message: (text: string) => [
    sse.event('response.output_item.added', {
      type: 'response.output_item.added',
      output_index: 0,
      item: { type: 'message', id: 'msg1', role: 'assistant', content: [] },
    }),
    sse.event('response.output_text.delta', {
      type: 'response.output_text.delta',
      item_id: 'msg1',
      output_index: 0,
      content_index: 0,
      delta: text,
    }),
    sse.event('response.output_item.done', { type: 'response.output_item.done', output_index: 0, item: { type: 'message', id: 'msg1' } }),
  ],
  completed: () =>
    sse.event('response.completed', {
      type: 'response.completed',
      response: {
        usage: {
          input_tokens: 7,
          output_tokens: 3,
          input_tokens_details: { cached_tokens: 2 },
          output_tokens_details: { reasoning_tokens: 1 },
        },
      },
    }),
  incomplete: (reason: string) =>
    sse.event('response.incomplete', {
      type: 'response.incomplete',
      response: { incomplete_details: { reason }, usage: { input_tokens: 7, output_tokens: 3 } },
    }),
};
