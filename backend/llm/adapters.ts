import type { Protocol, ProtocolAdapter } from './llm-types.js';

/** Protocol code is loaded on a turn's first use, never at backend start (cold start, idle memory). */
export async function loadAdapter(protocol: Protocol): Promise<ProtocolAdapter> {
  switch (protocol) {
    case 'compat':
      return (await import('./compat-adapter.js')).compatAdapter;
    case 'native':
      return (await import('./native-adapter.js')).nativeAdapter;
    case 'responsemode':
      return (await import('./responses-adapter.js')).responsesAdapter;
  }
}
