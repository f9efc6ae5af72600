// cross-spawn's cmd.exe quoting (https://qntm.org/cmd), used on its own: the resolution around it is
// ours so that it can take an injected platform and PATHEXT.
declare module 'cross-spawn/lib/util/escape.js' {
  export function command(command: string): string;
  export function argument(arg: string, doubleEscapeMetaChars?: boolean): string;
}
