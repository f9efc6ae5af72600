/**
 * The retrieval-quality data set: a slice of the SQuAD 2.0 dev set (bench/data/squad-v2-dev-slice,
 * provenance in its README). Paragraphs are the documents, answerable questions the queries, and
 * the paragraph a question was written on is the passage holding its answer.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './bench-kit.js';

export const SLICE_DIR = path.join(ROOT, 'bench', 'data', 'squad-v2-dev-slice');

export interface Paragraph {
  title: string;
  context: string;
  /** SQuAD id, question, first reference answer and its character offset in `context`. */
  qas: { id: string; q: string; a: string; s: number }[];
}

export interface Question {
  id: string;
  text: string;
  answer: string;
  /** Index of the paragraph that holds the answer. */
  paragraph: number;
}

export interface Slice {
  paragraphs: Paragraph[];
  questions: Question[];
  /** The note title each paragraph is added under: its article and its position in it. */
  names: string[];
}

/**
 * Reads the slice and checks every answer sits at its offset in its paragraph: the slice was copied
 * from the dev set by hand, and this is what proves the copy of each paragraph faithful up to its answers.
 */
export function loadSlice(dir = SLICE_DIR): Slice {
  const lines = readFileSync(path.join(dir, 'paragraphs.jsonl'), 'utf8').split('\n').filter(Boolean);
  const paragraphs = lines.map((line) => JSON.parse(line) as Paragraph);
  const questions: Question[] = [];
  const names: string[] = [];
  const perTitle = new Map<string, number>();
  paragraphs.forEach((p, i) => {
    const n = (perTitle.get(p.title) ?? 0) + 1;
    perTitle.set(p.title, n);
    names.push(`${p.title.replace(/_/g, ' ')} ${n}`);
    for (const qa of p.qas) {
      if (p.context.slice(qa.s, qa.s + qa.a.length) !== qa.a)
        throw new Error(`slice damaged: answer of ${qa.id} ("${qa.a}") is not at offset ${qa.s} of paragraph ${i}`);
      questions.push({ id: qa.id, text: qa.q, answer: qa.a, paragraph: i });
    }
  });
  return { paragraphs, questions, names };
}
