/**
 * Commands for the chat page from the keyboard layer and the palette. The chat page may not be
 * mounted yet (the command navigates there first): the last command waits until it subscribes.
 */
export type AppCommand = { type: 'new-chat' } | { type: 'focus-search' } | { type: 'open-session'; workspaceId: string; sessionId: string };

type Listener = (command: AppCommand) => void;
let listener: Listener | null = null;
let pending: AppCommand | null = null;

export function sendCommand(command: AppCommand): void {
  if (listener) listener(command);
  else pending = command;
}

/** The chat page's handler; gets a command sent before it mounted. Returns the unsubscribe. */
export function onCommand(handler: Listener): () => void {
  listener = handler;
  const waiting = pending;
  pending = null;
  if (waiting) queueMicrotask(() => handler(waiting));
  return () => {
    if (listener === handler) listener = null;
  };
}
