// The /ws message contract (DESIGN 4 and 6), for clients and for the hub: what the server sends,
// and one schema for what a client may send (turn frames themselves are in chat/chat-api.ts).
import { z } from 'zod';
import { ResumeMessageSchema } from '../chat/chat-api.js';
import type { DeviceRole } from '../pairing/pairing-api.js';
import type { KnowledgeProgress } from '../knowledge/knowledge-api.js';

/** `knowledge`: a knowledge base was created, changed or deleted, or one of its sources added or removed (`id`: the KB). */
export type ConfigResource = 'providers' | 'defaults' | 'profiles' | 'workspaces' | 'mcp' | 'skills' | 'web' | 'knowledge';

export type ServerMessage =
  | { type: 'hello'; node_id: string; version: string }
  | { type: 'config.changed'; resource: ConfigResource; id: string | null }
  | { type: 'log'; seq: number; time: string; stream: string; line: string }
  | { type: 'pong' }
  | KnowledgeProgress
  | { type: 'error'; message: string; code?: 'owner_required' };

/** Topics stay loose here: unknown ones are ignored, not refused (a newer client, an older server). */
const topics = z.array(z.unknown());

export const ClientMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ping') }),
  z.object({ type: z.literal('subscribe'), topics }),
  z.object({ type: z.literal('unsubscribe'), topics }),
  ResumeMessageSchema,
]);
export type ClientMessage = z.output<typeof ClientMessageSchema>;

/**
 * Who may send each client message (DESIGN 16), the WebSocket half of `api/route-roles.ts`; a
 * new message type does not compile until it is placed here. Topics a member may not follow are
 * in WS_TOPIC_ROLES: the service log carries tool servers' output.
 */
export const WS_MESSAGE_ROLES: Readonly<Record<ClientMessage['type'], DeviceRole>> = {
  ping: 'member',
  subscribe: 'member',
  unsubscribe: 'member',
  resume: 'member',
};
export const WS_TOPIC_ROLES: Readonly<Record<string, DeviceRole>> = { log: 'owner' };
