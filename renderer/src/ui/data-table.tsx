import { useLayoutEffect, useRef, type ReactNode } from 'react';

/**
 * A table that turns into stacked cards at phone width (styles.css, `.table-stack`): the title cell on
 * top, every other cell on its own line after its column's name, the actions wrapping below. Pages
 * name the columns once, in the header row: the cells get those names as `data-label` here.
 *
 * Once rows are no longer laid out as a table some browsers (Safari) drop the table semantics, so the
 * roles are explicit: a screen reader still hears each cell with its column header (the header row
 * stays in the accessibility tree, only visually hidden).
 */
export function DataTable(props: {
  head: ReactNode;
  children: ReactNode;
  /** Accessible name of the table (when the surrounding card does not give one). */
  label?: string;
  /** The first cell is the row's title: shown on top of the card without its column name. */
  titled?: boolean;
  className?: string;
  /** Class of the scroll box around the table (its margins and border). */
  wrapClassName?: string;
}) {
  const ref = useRef<HTMLTableElement>(null);
  // After every render: rows come and go with the children, and headers change with the language.
  useLayoutEffect(() => {
    if (ref.current) labelCells(ref.current);
  });
  const classes = ['table', 'table-stack', props.titled === false ? '' : 'table-titled', props.className ?? ''];
  return (
    <div className={`table-wrap ${props.wrapClassName ?? ''}`}>
      <table ref={ref} role="table" className={classes.filter(Boolean).join(' ')} aria-label={props.label}>
        <thead role="rowgroup">{props.head}</thead>
        <tbody role="rowgroup">{props.children}</tbody>
      </table>
    </div>
  );
}

/** Column names for the stacked layout and explicit roles; a header that is only for screen readers (actions) labels nothing. */
function labelCells(table: HTMLTableElement): void {
  const names = [...(table.tHead?.rows[0]?.cells ?? [])].map(visibleText);
  for (const row of table.rows) {
    row.setAttribute('role', 'row');
    const inHead = row.parentElement === table.tHead;
    [...row.cells].forEach((cell, i) => {
      cell.setAttribute('role', inHead ? 'columnheader' : 'cell');
      const name = inHead ? '' : (names[i] ?? '');
      if (name) cell.dataset.label = name;
      else delete cell.dataset.label;
    });
  }
}

function visibleText(cell: HTMLTableCellElement): string {
  const copy = cell.cloneNode(true) as HTMLElement;
  copy.querySelectorAll('.sr-only').forEach((el) => el.remove());
  return (copy.textContent ?? '').trim();
}
