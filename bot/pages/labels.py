"""The words of the pages in each language (knowledge text comes from the entries)."""

from __future__ import annotations

LANG_NAMES = {"en": "English", "ko": "한국어", "zh": "中文"}

LABELS = {
    "en": {
        "kb": "PyTorch error knowledge base", "entries": "{n} entries", "search": "Search errors",
        "search_hint": "Filter by words of the error message, the title or the id",
        "search_button": "Search", "no_results": "No entry matches “{q}”.", "results": "{n} of {total} entries match “{q}”.",
        "dashboard": "Dashboard", "all_entries": "All entries", "also": "Also available as",
        "matches": "Messages it matches", "examples": "Example messages", "exception": "Exception",
        "fix_rate": "Best measured fix rate", "no_measured": "No fix measured yet: every rate below is a team "
        "estimate, not yet verified.",
        "evidence": "Evidence", "answers": "answers given", "verifications": "verified runs",
        "reproduced": "reproduced the error", "askers": "distinct askers", "votes": "votes on answers",
        "first_seen": "First seen", "last_seen": "Last seen", "never": "not yet",
        "runs_table": "Verified runs by torch version and device", "torch": "torch", "device": "device",
        "runs": "runs", "versions": "Versions", "version_range": "torch versions", "message": "message there",
        "note": "note", "root_cause": "Root cause", "diagnosis": "Diagnosis", "symptoms": "Symptoms",
        "scenarios": "Scenarios", "workarounds": "Workarounds (best backed first)",
        "dead_ends": "Dead ends (look right, but fail)", "raises": "raises instead", "sources": "Sources",
        "related": "Related errors", "caveats": "Note", "code": "code", "measured": "measured",
        "estimate_badge": "estimate", "refuted_badge": "refuted", "status": "Proven by kb verify",
        "status_reproduced": "reproduced by kb verify", "status_not_reproduced": "kb verify did not reproduce it",
        "status_not_run": "kb verify has not run it yet", "status_no_repro": "no repro snippet",
        "status_needs": "its repro needs {what}", "on_torch": "torch {v}",
        "store_none": "No evidence store yet: every rate is a team estimate, not yet verified.",
        "store_error": "The evidence store could not be read ({why}): showing the knowledge base's estimates.",
        "most_asked": "Most asked errors", "unanswered": "Asked, but no confident answer",
        "fixes_by_evidence": "Fixes by their evidence", "history": "Evidence per week",
        "history_note": "verified workaround runs that fixed the error and that did not, answers, votes",
        "fixed": "fixed", "failed": "failed", "held": "held", "nearest": "nearest entry",
        "without_runs": "Entries without a verified fix run", "nothing_yet": "Nothing recorded yet.",
        "count": "times", "week": "week of",
        "question": "Question (paths, numbers and names replaced)", "not_reproducible": "Not reproducible on the current torch",
        "aliases": "Also known as", "entry": "Entry", "language": "Language",
        "needs": {"cuda": "a GPU", "distributed": "several processes", "windows": "Windows",
                  "install": "a broken installation", "mps": "Apple MPS"},
    },
    "ko": {
        "kb": "PyTorch 오류 지식 베이스", "entries": "항목 {n}개", "search": "오류 검색",
        "search_hint": "오류 메시지, 제목, id의 단어로 거르기", "search_button": "검색",
        "no_results": "“{q}”에 맞는 항목이 없습니다.", "results": "항목 {total}개 중 {n}개가 “{q}”에 맞습니다.",
        "dashboard": "대시보드", "all_entries": "전체 항목", "also": "다른 형식",
        "matches": "일치하는 메시지", "examples": "메시지 예시", "exception": "예외",
        "fix_rate": "측정된 최고 해결률", "no_measured": "아직 측정된 해결 방법이 없습니다. 아래의 해결률은 모두 "
        "팀 추정치이며 아직 검증되지 않았습니다.",
        "evidence": "근거", "answers": "답변 횟수", "verifications": "검증 실행", "reproduced": "오류 재현",
        "askers": "질문자 수", "votes": "답변 평가", "first_seen": "처음 확인", "last_seen": "마지막 확인",
        "never": "아직 없음", "runs_table": "torch 버전과 장치별 검증 실행", "torch": "torch", "device": "장치",
        "runs": "실행", "versions": "버전", "version_range": "torch 버전", "message": "해당 버전의 메시지",
        "note": "참고", "root_cause": "원인", "diagnosis": "진단", "symptoms": "증상", "scenarios": "상황별 예",
        "workarounds": "해결 방법 (근거가 강한 순)", "dead_ends": "효과 없는 시도", "raises": "대신 나는 오류",
        "sources": "출처", "related": "관련 오류", "caveats": "주의", "code": "코드", "measured": "측정값",
        "estimate_badge": "추정치", "refuted_badge": "반증됨", "status": "kb verify 검증",
        "status_reproduced": "kb verify로 재현됨", "status_not_reproduced": "kb verify에서 재현되지 않음",
        "status_not_run": "아직 kb verify로 실행하지 않음", "status_no_repro": "재현 코드 없음",
        "status_needs": "재현에 {what} 필요", "on_torch": "torch {v}",
        "store_none": "아직 근거 저장소가 없습니다. 모든 해결률은 팀 추정치이며 아직 검증되지 않았습니다.",
        "store_error": "근거 저장소를 읽을 수 없어({why}) 지식 베이스의 추정치를 보여 줍니다.",
        "most_asked": "가장 많이 물어본 오류", "unanswered": "확실한 답을 못 한 질문",
        "fixes_by_evidence": "근거별 해결 방법", "history": "주별 근거",
        "history_note": "오류를 해결한 검증 실행과 해결하지 못한 실행, 답변, 평가",
        "fixed": "해결", "failed": "실패", "held": "보류", "nearest": "가장 가까운 항목",
        "without_runs": "검증 실행이 없는 항목", "nothing_yet": "아직 기록이 없습니다.", "count": "회", "question": "질문 (경로, 숫자, 이름은 자리표시자로 바꿈)",
        "week": "주 시작일", "not_reproducible": "현재 torch에서는 재현되지 않음", "aliases": "다른 id",
        "entry": "항목", "language": "언어",
        "needs": {"cuda": "GPU", "distributed": "여러 프로세스", "windows": "Windows", "install": "깨진 설치 환경",
                  "mps": "Apple MPS"},
    },
    "zh": {
        "kb": "PyTorch 错误知识库", "entries": "共 {n} 个条目", "search": "搜索错误",
        "search_hint": "按错误信息、标题或 id 中的词筛选", "search_button": "搜索",
        "no_results": "没有与“{q}”匹配的条目。", "results": "{total} 个条目中有 {n} 个与“{q}”匹配。",
        "dashboard": "统计面板", "all_entries": "全部条目", "also": "其他格式",
        "matches": "匹配的错误信息", "examples": "错误信息示例", "exception": "异常",
        "fix_rate": "实测最佳修复率", "no_measured": "尚无实测的修复方法：下面的比率都是团队估计，尚未验证。",
        "evidence": "证据", "answers": "回答次数", "verifications": "验证运行", "reproduced": "复现了错误",
        "askers": "提问者人数", "votes": "答案评价", "first_seen": "首次出现", "last_seen": "最近出现",
        "never": "尚无", "runs_table": "按 torch 版本和设备统计的验证运行", "torch": "torch", "device": "设备",
        "runs": "运行", "versions": "版本", "version_range": "torch 版本", "message": "该版本的错误信息",
        "note": "说明", "root_cause": "根本原因", "diagnosis": "诊断", "symptoms": "症状", "scenarios": "常见场景",
        "workarounds": "解决方法（依据最充分的在前）", "dead_ends": "看似可行但无效的做法", "raises": "改为引发",
        "sources": "来源", "related": "相关错误", "caveats": "注意", "code": "代码", "measured": "实测",
        "estimate_badge": "估计", "refuted_badge": "已被否定", "status": "kb verify 验证",
        "status_reproduced": "已由 kb verify 复现", "status_not_reproduced": "kb verify 未能复现",
        "status_not_run": "kb verify 尚未运行", "status_no_repro": "没有复现代码",
        "status_needs": "复现需要{what}", "on_torch": "torch {v}",
        "store_none": "尚无证据库：所有比率都是团队估计，尚未验证。",
        "store_error": "无法读取证据库（{why}），显示的是知识库中的估计。",
        "most_asked": "被问最多的错误", "unanswered": "没有把握回答的提问",
        "fixes_by_evidence": "按证据排列的解决方法", "history": "每周证据",
        "history_note": "修复了错误与未能修复的验证运行、回答、评价",
        "fixed": "修复", "failed": "失败", "held": "暂缓计入", "nearest": "最接近的条目",
        "without_runs": "没有验证运行的条目", "nothing_yet": "尚无记录。", "count": "次", "week": "周起始日", "question": "提问（路径、数字和名称已替换为占位符）",
        "not_reproducible": "在当前 torch 上无法复现", "aliases": "别名", "entry": "条目", "language": "语言",
        "needs": {"cuda": " GPU", "distributed": "多个进程", "windows": " Windows", "install": "损坏的安装环境",
                  "mps": " Apple MPS"},
    },
}


def labels(lang: str) -> dict:
    return LABELS.get(lang, LABELS["en"])


def status_text(status: dict, lang: str) -> str:
    L = labels(lang)
    kind = status.get("status") or "not_run"
    if kind.startswith("needs_"):
        what = kind.removeprefix("needs_")
        return L["status_needs"].format(what=L["needs"].get(what, what))
    text = L.get(f"status_{kind}", kind)
    if kind == "reproduced" and status.get("torch"):
        text += f" ({L['on_torch'].format(v=status['torch'])})"
    return text
