"""Append collector C posts+labels from a JSON list on stdin, deduping by url.
Each item: {url,title,date,query,text,lang,label,expected,kind,why}; repo/id derived from url."""
import json, re, sys, os
D = os.path.dirname(os.path.abspath(__file__))
seen = set()
for p in ['/work/wt-corpusA/eval/real/posts_A.jsonl', '/work/wt-corpusB/eval/real/posts_B.jsonl', D + '/posts_C.jsonl']:
    if os.path.exists(p):
        for l in open(p, encoding='utf-8'):
            seen.add(json.loads(l)['url'])
items = json.load(sys.stdin)
added = dup = 0
with open(D + '/posts_C.jsonl', 'a', encoding='utf-8') as fp, open(D + '/labels_C.jsonl', 'a', encoding='utf-8') as fl:
    for it in items:
        u = it['url']
        if u in seen:
            dup += 1; print('DUP', u); open(D + '/skips_C.tsv', 'a', encoding='utf-8').write(f"{it['query']}\tduplicate (url already in A, B or C)\t1\n"); continue
        seen.add(u)
        m = re.match(r'https://github\.com/([^/]+/[^/]+)/issues/(\d+)', u)
        pid = f'gh:{m.group(1)}#{m.group(2)}'
        post = {'id': pid, 'url': u, 'repo': m.group(1), 'title': it['title'], 'date': it.get('date'),
                'source': 'github-issues', 'query': it['query'], 'text': it['text'], 'lang': it['lang']}
        if it.get('bare_title'):
            post['bare_title'] = True
        lab = {'id': pid, 'label': it['label'], 'expected': it.get('expected'), 'kind': it.get('kind'), 'why': it['why']}
        fp.write(json.dumps(post, ensure_ascii=False) + '\n'); fl.write(json.dumps(lab, ensure_ascii=False) + '\n')
        added += 1
n = sum(1 for _ in open(D + '/posts_C.jsonl', encoding='utf-8'))
print(f'added {added} dup {dup} total {n}')
