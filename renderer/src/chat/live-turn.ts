import type { Block, TurnError, TurnFrame, Usage } from './chat-types';

/** A turn as its frames build it: applied strictly in seq order, so a resume can never double text. */
export interface LiveTurn {
  turnId: string;
  lastSeq: number;
  model?: string;
  blocks: Block[];
  /** Calls waiting for Allow / Deny. */
  waiting: string[];
  usage?: Usage;
  compaction?: { tokens_before: number; tokens_after: number };
  status: 'running' | 'completed' | 'failed';
  error?: TurnError;
  stopReason?: string;
}

export function newLiveTurn(turnId: string): LiveTurn {
  return { turnId, lastSeq: 0, blocks: [], waiting: [], status: 'running' };
}

export const ZERO_USAGE: Usage = { input: 0, output: 0, cache_read: 0, cache_write: 0, reasoning: 0 };

export function addUsage(a: Usage | undefined, b: Partial<Usage> | undefined): Usage {
  const x = a ?? ZERO_USAGE;
  return {
    input: x.input + (b?.input ?? 0),
    output: x.output + (b?.output ?? 0),
    cache_read: x.cache_read + (b?.cache_read ?? 0),
    cache_write: x.cache_write + (b?.cache_write ?? 0),
    reasoning: x.reasoning + (b?.reasoning ?? 0),
  };
}

/** One frame applied to the turn (the caller guarantees `frame.seq === turn.lastSeq + 1`). */
export function applyFrame(turn: LiveTurn, frame: TurnFrame): LiveTurn {
  const next: LiveTurn = { ...turn, lastSeq: frame.seq };
  switch (frame.type) {
    case 'turn.started':
      next.model = frame.model;
      return next;
    case 'turn.delta': {
      const last = turn.blocks[turn.blocks.length - 1];
      if (last && last.type === frame.kind) {
        next.blocks = [...turn.blocks.slice(0, -1), { type: frame.kind, text: last.text + frame.text }];
      } else {
        next.blocks = [...turn.blocks, { type: frame.kind, text: frame.text }];
      }
      return next;
    }
    case 'turn.tool_call':
      next.blocks = [
        ...turn.blocks,
        { type: 'tool_call', call_id: frame.call_id, server: frame.server, tool: frame.tool, arguments: frame.arguments ?? {} },
      ];
      if (frame.needs_approval) next.waiting = [...turn.waiting, frame.call_id];
      return next;
    case 'turn.tool_result':
      next.blocks = [
        ...turn.blocks,
        {
          type: 'tool_result',
          call_id: frame.call_id,
          ok: frame.ok,
          content: frame.content,
          ...(frame.attachments ? { attachments: frame.attachments } : {}),
        },
      ];
      next.waiting = turn.waiting.filter((id) => id !== frame.call_id);
      return next;
    case 'turn.compacted':
      next.compaction = { tokens_before: frame.tokens_before, tokens_after: frame.tokens_after };
      return next;
    case 'turn.usage':
      next.usage = addUsage(turn.usage, frame);
      return next;
    case 'turn.completed':
      next.status = 'completed';
      next.stopReason = frame.stop_reason;
      next.waiting = [];
      return next;
    case 'turn.failed':
      next.status = 'failed';
      next.error = frame.error;
      next.waiting = [];
      return next;
    default:
      return next;
  }
}

/**
 * Frames in order: `pending` holds frames that arrived ahead of a gap (a resume fills it).
 * Returns the turn after every contiguous frame is applied, and whether a gap remains.
 */
export function drainFrames(turn: LiveTurn, pending: Map<number, TurnFrame>): { turn: LiveTurn; gap: boolean } {
  let t = turn;
  for (const seq of [...pending.keys()]) if (seq <= t.lastSeq) pending.delete(seq);
  let nextFrame = pending.get(t.lastSeq + 1);
  while (nextFrame) {
    pending.delete(nextFrame.seq);
    t = applyFrame(t, nextFrame);
    nextFrame = pending.get(t.lastSeq + 1);
  }
  return { turn: t, gap: pending.size > 0 };
}
