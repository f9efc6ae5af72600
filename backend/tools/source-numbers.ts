/**
 * One reply's numbering of sources ([1], [2]…), shared by every built-in tool that shows the model
 * numbered sources (web pages, knowledge passages): a number names one source in the whole reply,
 * whichever tool gave it (DESIGN 13/14).
 */
export class SourceNumbers {
  private last = 0;

  next(): number {
    this.last += 1;
    return this.last;
  }

  /** The highest number given so far (0: none). */
  get count(): number {
    return this.last;
  }
}
