/**
 * Pure parts of loading the window's page (no `electron` import, tested under Node): when a
 * failure is worth telling the user, and delivering to the page only once it has loaded.
 */

/** Chromium's net error for a navigation replaced by another one: not a failure to report. */
const ERR_ABORTED = -3;

export function isReportableLoadFailure(errorCode: number, isMainFrame: boolean): boolean {
  return isMainFrame && errorCode !== ERR_ABORTED;
}

export function loadFailureDetail(reason: string, url: string): string {
  return `${reason}\n${url}\n\nThe backend keeps running: File → Show Logs and Open Log Folder still work.`;
}

/** The part of WebContents `whenLoaded` needs. */
export interface LoadingPage {
  isLoading(): boolean;
  once(event: 'did-finish-load', listener: () => void): unknown;
}

/** Runs `action` now when the page has loaded, else once it has (a message sent earlier would be lost). */
export function whenLoaded(page: LoadingPage, action: () => void): void {
  if (page.isLoading()) page.once('did-finish-load', action);
  else action();
}

/** The renderer's start URL, optionally at one of its hash routes (`#/logs`). */
export function startUrl(base: string, route?: string): string {
  return route ? `${base}#/${route}` : base;
}
