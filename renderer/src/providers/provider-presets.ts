import type { ProviderType } from './provider-types';

/** Well-known providers: picking one fills the protocol type, the base URL and a name. */
export interface ProviderPreset {
  key: string;
  name: string;
  type: ProviderType;
  base_url: string;
}

export const PROVIDER_PRESETS: readonly ProviderPreset[] = [
  { key: 'openai', name: 'OpenAI', type: 'responsemode', base_url: 'https://api.openai.com/v1' },
  { key: 'anthropic', name: 'Anthropic', type: 'native', base_url: 'https://api.anthropic.com' },
  { key: 'deepseek', name: 'DeepSeek', type: 'compat', base_url: 'https://api.deepseek.com/v1' },
  { key: 'openrouter', name: 'OpenRouter', type: 'compat', base_url: 'https://openrouter.ai/api/v1' },
  { key: 'ollama', name: 'Ollama', type: 'compat', base_url: 'http://127.0.0.1:11434/v1' },
  { key: 'lmstudio', name: 'LM Studio', type: 'compat', base_url: 'http://127.0.0.1:1234/v1' },
];
