"""Check posts_C/labels_C: every line parses, one label per post, labels well-formed,
expected ids exist in knowledge/required-ids.txt, no url shared with A or B."""
import json, os, sys
D = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(D))
req = {l.strip() for l in open(os.path.join(ROOT, 'knowledge/required-ids.txt')) if l.strip() and not l.startswith('#')}
errs = []
posts = []
for i, l in enumerate(open(os.path.join(D, 'posts_C.jsonl'), encoding='utf-8'), 1):
    try:
        posts.append(json.loads(l))
    except ValueError as e:
        errs.append(f'posts_C.jsonl line {i}: {e}')
labels = []
for i, l in enumerate(open(os.path.join(D, 'labels_C.jsonl'), encoding='utf-8'), 1):
    try:
        labels.append(json.loads(l))
    except ValueError as e:
        errs.append(f'labels_C.jsonl line {i}: {e}')
pid = [p['id'] for p in posts]
if len(set(pid)) != len(pid):
    errs.append('duplicate post ids')
if len({p['url'] for p in posts}) != len(posts):
    errs.append('duplicate urls')
lid = [x['id'] for x in labels]
if sorted(lid) != sorted(pid):
    errs.append('label ids do not match post ids one to one')
for p in posts:
    for k in ('id', 'url', 'repo', 'title', 'date', 'source', 'query', 'text', 'lang'):
        if k not in p:
            errs.append(f"{p.get('id')}: missing {k}")
    if p['lang'] not in ('en', 'ko', 'zh'):
        errs.append(f"{p['id']}: bad lang {p['lang']}")
    if p['source'] != 'github-issues':
        errs.append(f"{p['id']}: bad source")
for x in labels:
    lab, exp, kind = x['label'], x['expected'], x['kind']
    if lab not in ('entry', 'outside', 'other-library', 'no-error'):
        errs.append(f"{x['id']}: bad label {lab}")
    if lab == 'entry' and (exp not in req or kind is not None):
        errs.append(f"{x['id']}: entry needs a known expected id and no kind ({exp}, {kind})")
    if lab in ('outside', 'other-library') and (not kind or exp is not None):
        errs.append(f"{x['id']}: {lab} needs a kind and no expected")
    if lab == 'no-error' and (exp is not None or kind is not None):
        errs.append(f"{x['id']}: no-error takes no expected/kind")
    if not x.get('why'):
        errs.append(f"{x['id']}: empty why")
others = set()
for p in ('/work/wt-corpusA/eval/real/posts_A.jsonl', '/work/wt-corpusB/eval/real/posts_B.jsonl'):
    if os.path.exists(p):
        others |= {json.loads(l)['url'] for l in open(p, encoding='utf-8')}
shared = [p['url'] for p in posts if p['url'] in others]
if shared:
    errs.append(f'urls also in A/B: {shared}')
print('\n'.join(errs) if errs else f'OK: {len(posts)} posts, {len(labels)} labels')
sys.exit(1 if errs else 0)
