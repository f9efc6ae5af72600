/**
 * `npm run bench:retrieval`: retrieval quality of knowledge-base search on the SQuAD 2.0 dev slice
 * (method in retrieval-bench.ts and docs/benchmarks.md). Prints the table and writes
 * bench-results/retrieval.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './bench-kit.js';
import { runRetrieval } from './retrieval-bench.js';

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const run = await runRetrieval((line) => process.stderr.write(`${line}\n`));
console.log(
  `\nRetrieval quality: ${run.questions} questions, ${run.paragraphs} paragraphs (${run.articles} articles, ${run.chunks} chunks) of the SQuAD 2.0 dev set.`,
);
console.table(
  run.scores.map((s) => ({
    ranking: s.name,
    'hit@1': pct(s.hitAt1),
    'hit@5': pct(s.hitAt5),
    'MRR@10': s.mrrAt10.toFixed(3),
    empty: s.empty,
    'search p50 ms': s.searchP50Ms?.toFixed(1) ?? '',
    'other mode': s.otherMode ?? '',
  })),
);
console.log(`embedding: ${run.embedding}; ingestion to ready: ${run.ingestSeconds.toFixed(1)} s`);
if (run.embedRequests !== undefined)
  console.log(
    `bench embedding server: ${run.embedRequests} requests, ${run.embedInputs} inputs from the backend; words without a vector: ${run.wordsMissing}`,
  );
console.log(
  `hybrid vs lexical: ${run.hybridVsLexical.gained} questions found in the top 5 by hybrid only, ${run.hybridVsLexical.lost} by lexical only`,
);
console.log(`vector mode: top 10 identical to the in-process cosine top 10 for ${run.vectorSameAsCosine} of ${run.questions} questions`);
const out = path.join(ROOT, 'bench-results', 'retrieval.json');
mkdirSync(path.dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), ...run }, null, 2)}\n`);
console.log(`written ${path.relative(process.cwd(), out) || out}`);
