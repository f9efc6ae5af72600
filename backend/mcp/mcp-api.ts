import { z } from 'zod';

/**
 * Tool-server files in the widely shared `mcpServers` shape, as desktop AI clients export it:
 * `{"mcpServers": {"<name>": {command, args, env} | {type: "http"|"sse", url, headers}}}`.
 * Keys this service does not know (disabled, autoApprove, timeout, …) pass through unchanged.
 */
export const REMOTE_TYPES = ['http', 'sse', 'streamable-http'] as const;

/** C0/C1 controls, DEL and the Unicode line separators: they could forge log lines or headers (DESIGN 9). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
export const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

const stringMap = (field: string) =>
  z
    .record(
      z.string(),
      z
        .string({ error: `${field} values must be strings` })
        .refine((v) => !CONTROL_CHARS.test(v), `${field} values must not contain control characters`),
      { error: `${field} must map names to strings` },
    )
    .superRefine((map, ctx) => {
      // Reported on the map itself: the bad name must not end up in the error's field.
      if (Object.keys(map).some((k) => CONTROL_CHARS.test(k) || !k)) {
        ctx.addIssue({ code: 'custom', message: `${field} names must be non-empty and must not contain control characters` });
      }
    });

/** Approval keys every entry may carry: `approval` (default `ask`) and `always_allow` (tool names as the server lists them). */
export const APPROVAL_MODES = ['auto', 'ask'] as const;
const approvalKeys = {
  approval: z.enum(APPROVAL_MODES, { error: 'approval must be "auto" or "ask"' }).optional(),
  always_allow: z
    .array(z.string({ error: 'always_allow must be a list of tool names' }).min(1, 'always_allow entries must not be empty'), {
      error: 'always_allow must be a list of tool names',
    })
    .optional(),
};

export const StdioServerSchema = z
  .object({
    type: z.literal('stdio').optional(),
    command: z.string({ error: 'command is required for a stdio server' }).trim().min(1, 'command is required for a stdio server'),
    args: z.array(z.string({ error: 'args must be a list of strings' }), { error: 'args must be a list of strings' }).optional(),
    env: stringMap('env').optional(),
    ...approvalKeys,
  })
  .loose();

export const RemoteServerSchema = z
  .object({
    type: z.enum(REMOTE_TYPES).optional(),
    url: z.string({ error: 'url is required for an http or sse server' }).refine((v) => {
      try {
        const u = new URL(v);
        return u.protocol === 'http:' || u.protocol === 'https:';
      } catch {
        return false;
      }
    }, 'url must be an absolute http(s) URL'),
    headers: stringMap('headers').optional(),
    ...approvalKeys,
  })
  .loose();

const SERVER_NAME = /^[^\s/\\][^/\\]{0,99}$/;

export const McpFileSchema = z
  .object(
    {
      mcpServers: z.record(z.string(), z.unknown(), { error: 'mcpServers must be an object of named servers' }).default({}),
    },
    { error: 'the body must be an object with mcpServers' },
  )
  .loose()
  .superRefine((file, ctx) => {
    for (const [name, server] of Object.entries(file.mcpServers)) {
      if (CONTROL_CHARS.test(name)) {
        ctx.addIssue({ code: 'custom', path: ['mcpServers'], message: 'server names must not contain control characters' });
        continue;
      }
      if (!SERVER_NAME.test(name)) {
        ctx.addIssue({ code: 'custom', path: ['mcpServers', name], message: 'server names must be 1-100 characters without slashes' });
        continue;
      }
      if (typeof server !== 'object' || server === null || Array.isArray(server)) {
        ctx.addIssue({ code: 'custom', path: ['mcpServers', name], message: 'each server must be an object' });
        continue;
      }
      const s = server as { type?: unknown; url?: unknown; command?: unknown };
      if (s.type !== undefined && s.type !== 'stdio' && !REMOTE_TYPES.includes(s.type as never)) {
        ctx.addIssue({ code: 'custom', path: ['mcpServers', name, 'type'], message: 'type must be stdio, http or sse' });
        continue;
      }
      const remote = s.type !== undefined ? s.type !== 'stdio' : s.url !== undefined && s.command === undefined;
      const parsed = (remote ? RemoteServerSchema : StdioServerSchema).safeParse(server);
      if (!parsed.success) {
        for (const issue of parsed.error.issues)
          ctx.addIssue({ code: 'custom', path: ['mcpServers', name, ...issue.path], message: issue.message });
      }
    }
  });

export type McpFile = z.infer<typeof McpFileSchema>;
export type McpServer = z.infer<typeof StdioServerSchema> | z.infer<typeof RemoteServerSchema>;

export interface McpView {
  mcpServers: Record<string, unknown>;
  /** Servers the service adds itself and that no file holds (`-mcp` → `cli`). */
  readonly: Record<string, McpServer & { source: 'cli' }>;
  errors: { file: string; line: number | null; message: string }[];
}
