import json,sys,os
seen=set()
for p in ['/work/wt-corpusA/eval/real/posts_A.jsonl','/work/wt-corpusB/eval/real/posts_B.jsonl','/work/wt-corpusC/eval/real/posts_C.jsonl']:
    for l in open(p,encoding='utf-8'): seen.add(json.loads(l)['url'])
for a in sys.argv[1:]:
    for u in a.split():
        if u in seen: print('DUP',u)
