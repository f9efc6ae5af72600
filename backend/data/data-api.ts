// What clients see of the data directory's own files: the problem a file that fails to parse
// reports (DESIGN 3), the same for config.yaml, profiles, workspaces, tool-server files and skills.

/** A data file that could not be read: where and why. The file is never overwritten until fixed. */
export interface FileProblem {
  file: string;
  /** 1-based line of the error, when the parser says. */
  line: number | null;
  message: string;
}
