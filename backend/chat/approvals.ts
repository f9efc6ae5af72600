import { ApiError } from '../http/errors.js';

export interface ApprovalAnswer {
  decision: 'allow' | 'deny';
  remember: boolean;
}

/** Tool calls of one turn waiting for the approvals endpoint. */
export class ApprovalBox {
  private readonly waiting = new Map<string, (answer: ApprovalAnswer) => void>();

  wait(callId: string, signal: AbortSignal): Promise<ApprovalAnswer> {
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.waiting.delete(callId);
        reject(signal.reason);
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(callId, (answer) => {
        signal.removeEventListener('abort', onAbort);
        this.waiting.delete(callId);
        resolve(answer);
      });
    });
  }

  answer(callId: string, answer: ApprovalAnswer): void {
    const resolve = this.waiting.get(callId);
    if (!resolve) throw new ApiError('conflict', `The tool call ${callId.slice(0, 80)} is not waiting for approval.`, { field: 'call_id' });
    resolve(answer);
  }
}
