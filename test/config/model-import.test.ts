import assert from 'node:assert/strict';
import { test } from 'node:test';
import { modelsFrom } from '../../backend/config/provider-check.js';

test('imported models keep the context window, output limit and capabilities the provider reports', () => {
  const models = modelsFrom({
    data: [
      // OpenRouter
      {
        kind: 'chat',
        id: 'deepseek/deepseek-r1',
        name: 'DeepSeek: R1',
        context_length: 163840,
        top_provider: { context_length: 163840, max_completion_tokens: 32768 },
        supported_parameters: ['tools', 'reasoning', 'max_tokens'],
        architecture: { input_modalities: ['text'], output_modalities: ['text'] },
      },
      // OpenRouter, a model that reads images
      { id: 'openai/gpt-4o', context_length: 128000, architecture: { input_modalities: ['text', 'image', 'file'] } },
      // Groq
      { id: 'llama-3.3-70b-versatile', context_window: 131072, max_completion_tokens: 32768 },
      // Mistral
      { id: 'mistral-large-latest', max_context_length: 131072, capabilities: { function_calling: true } },
      { id: 'pixtral-large-latest', max_context_length: 131072, capabilities: { function_calling: true, vision: true } },
      // vLLM
      { id: 'qwen', max_model_len: 32768 },
      // OpenAI and DeepSeek report nothing: nothing is invented
      { id: 'gpt-4o', object: 'model' },
      // Anthropic
      { id: 'claude-sonnet-4-5', display_name: 'Claude Sonnet 4.5' },
    ],
  });
  assert.deepEqual(models, [
    {
      kind: 'chat',
      id: 'deepseek/deepseek-r1',
      name: 'DeepSeek: R1',
      context_window: 163840,
      max_output_tokens: 32768,
      supports_thinking: true,
      supports_tools: true,
      supports_vision: false,
    },
    {
      kind: 'chat',
      id: 'openai/gpt-4o',
      name: 'openai/gpt-4o',
      context_window: 128000,
      supports_thinking: false,
      supports_tools: false,
      supports_vision: true,
    },
    {
      kind: 'chat',
      id: 'llama-3.3-70b-versatile',
      name: 'llama-3.3-70b-versatile',
      context_window: 131072,
      max_output_tokens: 32768,
      supports_thinking: false,
      supports_tools: false,
      supports_vision: false,
    },
    {
      kind: 'chat',
      id: 'mistral-large-latest',
      name: 'mistral-large-latest',
      context_window: 131072,
      supports_thinking: false,
      supports_tools: true,
      supports_vision: false,
    },
    {
      kind: 'chat',
      id: 'pixtral-large-latest',
      name: 'pixtral-large-latest',
      context_window: 131072,
      supports_thinking: false,
      supports_tools: true,
      supports_vision: true,
    },
    {
      kind: 'chat',
      id: 'qwen',
      name: 'qwen',
      context_window: 32768,
      supports_thinking: false,
      supports_tools: false,
      supports_vision: false,
    },
    { kind: 'chat', id: 'gpt-4o', name: 'gpt-4o', supports_thinking: false, supports_tools: false, supports_vision: false },
    {
      kind: 'chat',
      id: 'claude-sonnet-4-5',
      name: 'Claude Sonnet 4.5',
      supports_thinking: false,
      supports_tools: false,
      supports_vision: false,
    },
  ]);
  assert.equal(modelsFrom({ data: [{ id: 'x', context_length: -5, context_window: 1.5 }] })![0].context_window, undefined);
});

test('imported embedding and rerank models are marked as such, from what the server says or from the id', () => {
  const kinds = modelsFrom({
    data: [
      { id: 'text-embedding-3-small', object: 'model' },
      { id: 'nomic-embed-text:latest' },
      { id: 'BAAI/bge-m3' },
      { id: 'jina-reranker-v2-base-multilingual' },
      { id: 'my-model', task: 'embed' },
      { id: 'gpt-4.1-mini' },
      { id: 'deepseek-reasoner' },
    ],
  })!.map((m) => [m.id, m.kind]);
  assert.deepEqual(kinds, [
    ['text-embedding-3-small', 'embedding'],
    ['nomic-embed-text:latest', 'embedding'],
    ['BAAI/bge-m3', 'embedding'],
    ['jina-reranker-v2-base-multilingual', 'rerank'],
    ['my-model', 'embedding'],
    ['gpt-4.1-mini', 'chat'],
    ['deepseek-reasoner', 'chat'],
  ]);
});
