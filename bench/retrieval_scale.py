"""Index build time for the knowledge base, and a synthetic knowledge base of ~100k chunks:
flat vs approximate (HNSW, IVF) vector search, latency and recall@10 against flat.

    PYTHONPATH=. python bench/retrieval_scale.py [--chunks 100000] [--work DIR]

The synthetic base is the real knowledge/ plus generated articles (in en/ko/zh, each
linked to a real entry) whose paragraphs recombine sentences of real chunks with a
unique run-specific tail, so that every chunk is distinct. It is indexed by the real
`build_index` (chunking, embedding with the default model, HNSW above the threshold,
BM25). Queries are the eval/dev lines. Slow: embedding 100k chunks takes minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bot.retrieval import index as idx  # noqa: E402
from bot.retrieval.evaluate import percentile, read_eval_file  # noqa: E402
from bot.retrieval.engine import Engine, get_embedder  # noqa: E402
from bot.retrieval.query import understand  # noqa: E402


def timed(fn, *a, **kw):
    start = time.perf_counter()
    out = fn(*a, **kw)
    return out, time.perf_counter() - start


def kb_build_times(embedder, work: Path) -> None:
    kb = work / "kb-copy"
    shutil.copytree(REPO / "knowledge", kb)
    index_dir = work / "kb-index"
    quiet = dict(progress=False, log=lambda m: None)
    report, full = timed(idx.build_index, kb, index_dir, embedder, **quiet)
    _, again = timed(idx.build_index, kb, index_dir, embedder, **quiet)
    entry = sorted((kb / "entries").rglob("*.yml"))[0]
    text = entry.read_text(encoding="utf-8")
    first_en = text.index("  en: ") + len("  en: ")  # the English title: a real text change
    entry.write_text(text[:first_en] + text[first_en:].replace('"', '"Bench: ', 1), encoding="utf-8")
    one_report, one = timed(idx.build_index, kb, index_dir, embedder, **quiet)
    print(f"knowledge base: {report.files} files, {report.chunks} chunks ({report.index_type})")
    print(f"  full build {full:.1f} s; rebuild with nothing changed {again:.2f} s; "
          f"rebuild after one file changed {one:.2f} s ({len(one_report.embedded_files)} file re-embedded)")


def make_synthetic(work: Path, target_chunks: int, seed: int = 7) -> Path:
    """Real knowledge + generated articles, about `target_chunks` chunks in all."""
    rng = random.Random(seed)
    kb = work / "synthetic-kb"
    shutil.copytree(REPO / "knowledge", kb)
    chunks = [json.loads(line) for line in (REPO / "index" / "chunks.jsonl").read_text(encoding="utf-8").splitlines()]
    by_lang: dict[str, list[str]] = {}
    for c in chunks:
        by_lang.setdefault(c["lang"], []).append(c["text"])
    entry_ids = sorted({c["entries"][0] for c in chunks})
    tails = {"en": "Seen in run {n} on node gpu-{m}.", "ko": "실행 {n}번, 노드 gpu-{m}에서 확인.",
             "zh": "在第 {n} 次运行、节点 gpu-{m} 上出现。"}
    per_article = 100
    articles = (target_chunks + per_article - 1) // per_article
    n = 0
    for a in range(articles):
        lang = rng.choice(["en", "en", "ko", "zh"])
        paragraphs = []
        for _ in range(per_article):
            n += 1
            # One short paragraph (one chunk): a real sentence group plus a unique tail.
            base = rng.choice(by_lang[lang])[:90 if lang != "en" else 240]
            paragraphs.append(f"{base} {tails[lang].format(n=n, m=rng.randint(0, 999))}")
        folder = kb / "articles" / lang
        folder.mkdir(parents=True, exist_ok=True)
        front = (f"---\ntitle: \"Synthetic notes {a}\"\nlanguage: {lang}\nsource: \"file:synthetic-{a}.md\"\n"
                 f"entries: [{rng.choice(entry_ids)}]\n---\n")
        (folder / f"synthetic-{a:05d}.md").write_text(front + "\n\n".join(paragraphs) + "\n", encoding="utf-8")
    return kb


def search_bench(name, index, queries, truth, k=10):
    times, recalls = [], []
    for i, q in enumerate(queries):
        start = time.perf_counter()
        _, ids = index.search(q[None, :], k)
        times.append((time.perf_counter() - start) * 1000)
        if truth is not None:
            recalls.append(len(set(ids[0]) & set(truth[i])) / k)
    recall = f"recall@10 {np.mean(recalls):.3f}" if recalls else "recall@10 1.000 (reference)"
    print(f"  {name:<28} p50 {percentile(times, 50):6.2f} ms  p95 {percentile(times, 95):6.2f} ms  {recall}")
    return times


def main() -> int:
    import faiss

    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--work", help="working folder (default: a temporary one, removed after)")
    parser.add_argument("--skip-kb", action="store_true")
    args = parser.parse_args()
    os.sched_setaffinity(0, set(sorted(os.sched_getaffinity(0))[:2]))
    faiss.omp_set_num_threads(2)
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="ts-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"work folder {work}; load average {os.getloadavg()}")
    from bot.retrieval.engine import get_engine

    get_engine()  # builds index/ if needed: the synthetic text is drawn from its chunks
    embedder = get_embedder()
    if not args.skip_kb:
        kb_build_times(embedder, work)

    kb = make_synthetic(work, args.chunks)
    index_dir = work / "synthetic-index"
    report, took = timed(idx.build_index, kb, index_dir, embedder, progress=True, log=lambda m: None)
    print(f"synthetic base: {report.files} files, {report.chunks} chunks; build {took:.0f} s "
          f"({report.chunks / took:.0f} chunks/s) with a {report.index_type} index")

    engine = Engine.load(kb, index_dir, embedder)
    hnsw = engine.index.vectors
    vectors = hnsw.reconstruct_n(0, hnsw.ntotal)
    dev = [row for name in ("pasted", "questions")
           for row in read_eval_file(REPO / "eval" / "dev" / f"{name}.jsonl")]
    queries = embedder.encode([understand(text).dense_texts()[0] for _, text, _ in dev])

    flat, t_flat = timed(idx.make_vector_index, vectors, "flat")
    _, truth = flat[0].search(queries, 10)
    print(f"vector search over {len(vectors)} chunks, {len(queries)} dev queries, k=10:")
    print(f"  build: flat {t_flat:.2f} s", end="")
    hnsw_again, t_hnsw = timed(idx.make_vector_index, vectors, "hnsw")
    print(f", HNSW (M={idx.HNSW_M}, efConstruction 80) {t_hnsw:.1f} s", end="")
    nlist = int(4 * np.sqrt(len(vectors)))
    quantizer = faiss.IndexFlatIP(vectors.shape[1])
    ivf = faiss.IndexIVFFlat(quantizer, vectors.shape[1], nlist, faiss.METRIC_INNER_PRODUCT)
    start = time.perf_counter()
    ivf.train(vectors)
    ivf.add(vectors)
    print(f", IVF-flat (nlist {nlist}) {time.perf_counter() - start:.1f} s")
    search_bench("flat (exact)", flat[0], queries, None)
    for ef in (32, 64, 128, 256):
        hnsw.hnsw.efSearch = ef
        search_bench(f"HNSW efSearch={ef}", hnsw, queries, truth)
    hnsw.hnsw.efSearch = idx.HNSW_EF_SEARCH
    for nprobe in (8, 16, 32):
        ivf.nprobe = nprobe
        search_bench(f"IVF nprobe={nprobe}", ivf, queries, truth)

    # End to end on the big index: latency and whether the distractors hurt accuracy.
    times, right = [], 0
    for _, text, expected in dev:
        start = time.perf_counter()
        result = engine.search(text, top=5)
        times.append((time.perf_counter() - start) * 1000)
        right += bool(result.hits) and result.hits[0].entry_id == engine.kb.resolve(expected).id
    print(f"hybrid search on the synthetic base (HNSW efSearch={idx.HNSW_EF_SEARCH}): p50 "
          f"{percentile(times, 50):.1f} ms, p95 {percentile(times, 95):.1f} ms; dev top-1 {right / len(dev):.3f}")
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
