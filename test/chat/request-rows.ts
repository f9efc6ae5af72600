/** A request's conversation as [role, text] rows, whatever the protocol's shape. */
export function rows(type: string, body: any): [string, string][] {
  const out: [string, string][] = [];
  const text = (v: any): string => (typeof v === 'string' ? v : JSON.stringify(v));
  if (type === 'compat') {
    for (const m of body.messages) {
      if (m.role === 'system') continue;
      if (m.tool_calls) out.push(['call', m.tool_calls.map((c: any) => c.function.name).join()]);
      else out.push([m.role === 'tool' ? 'result' : m.role, text(m.content)]);
    }
  } else if (type === 'native') {
    for (const m of body.messages)
      for (const b of m.content) {
        if (b.type === 'text') out.push([m.role, b.text]);
        else if (b.type === 'tool_use') out.push(['call', b.name]);
        else if (b.type === 'tool_result') out.push(['result', text(b.content)]);
      }
  } else {
    for (const i of body.input) {
      if (i.type === 'message') out.push([i.role, i.content.map((c: any) => c.text).join('')]);
      else if (i.type === 'function_call') out.push(['call', i.name]);
      else if (i.type === 'function_call_output') out.push(['result', text(i.output)]);
    }
  }
  return out;
}

/** The system prompt a request carried, whatever the protocol's shape. */
export function systemText(type: string, body: any): string {
  if (type === 'compat') return body.messages[0].role === 'system' ? body.messages[0].content : '';
  if (type === 'native') return (body.system ?? []).map((b: any) => b.text).join('');
  return body.instructions ?? '';
}
