"""The bot's own words in the three answer languages, for every surface: the terminal
(bot/answer/render.py) and Slack (bot/slack) read this one table, so a concept has
one translation everywhere. Knowledge text comes localised from the knowledge base;
these are only the labels and short messages around it. The words of the evidence
behind a rate are in bot/evidence/display.py.
"""

from __future__ import annotations

WORDS: dict[str, dict[str, str]] = {
    # --- words both surfaces use: one translation each ---
    "root_cause": {"en": "Root cause", "ko": "근본 원인", "zh": "根本原因"},
    "workarounds": {"en": "Workarounds (best backed first)", "ko": "해결 방법 (근거가 강한 순)",
                    "zh": "解决方法（依据最充分的在前）"},
    "dead_ends": {"en": "Dead ends: these look right but fail", "ko": "막다른 길: 그럴듯하지만 실패하는 방법",
                  "zh": "死胡同：看似正确但会失败的做法"},
    "leads_to": {"en": "raises instead", "ko": "대신 발생하는 오류", "zh": "改为报错"},
    "sources": {"en": "Sources", "ko": "출처", "zh": "来源"},
    "confidence": {"en": "Confidence", "ko": "신뢰도", "zh": "置信度"},
    "evidence": {"en": "evidence", "ko": "근거", "zh": "证据"},
    "also": {"en": "Also possible", "ko": "다른 후보", "zh": "其他候选"},
    # a measured fix rate: "worked 80% · ..." in Slack, "fixes it 80% (...)" in a terminal
    "works": {"en": "worked", "ko": "해결률", "zh": "成功率"},
    "success": {"en": "fixes it", "ko": "해결률", "zh": "成功率"},
    # --- the terminal (bot/answer/render.py) ---
    "caveats": {"en": "note", "ko": "주의", "zh": "注意"},
    "unsure": {"en": "Not sure which known error this is", "ko": "어떤 알려진 오류인지 확실하지 않습니다",
               "zh": "无法确定这是哪一种已知错误"},
    "nearest": {"en": "Nearest entries", "ko": "가장 가까운 항목", "zh": "最接近的条目"},
    "hint": {"en": "Paste the whole traceback (its last lines matter most), or describe what you ran.",
             "ko": "전체 트레이스백(특히 마지막 줄)을 붙여 넣거나 무엇을 실행했는지 알려 주세요.",
             "zh": "请粘贴完整的 traceback（最后几行最重要），或说明你运行了什么。"},
    "matched": {"en": "matched", "ko": "일치", "zh": "匹配"},
    "unknown_rate": {"en": "rate unknown", "ko": "해결률 미상", "zh": "成功率未知"},
    "our_evidence": {"en": "our evidence", "ko": "검증 결과", "zh": "验证结果"},
    # --- Slack (bot/slack) ---
    "high": {"en": "high", "ko": "높음", "zh": "高"},
    "medium": {"en": "medium", "ko": "보통", "zh": "中"},
    "low": {"en": "low", "ko": "낮음", "zh": "低"},
    "page": {"en": "Knowledge page", "ko": "지식 페이지", "zh": "知识页面"},
    "not_sure": {"en": "I'm not sure which known error this is, so I won't guess.",
                 "ko": "어떤 알려진 오류인지 확실하지 않아 추측하지 않겠습니다.",
                 "zh": "我不确定这是哪一种已知错误，所以不做猜测。"},
    "closest": {"en": "Closest, with low confidence", "ko": "가장 가까운 후보 (낮은 신뢰도)", "zh": "最接近的候选（置信度低）"},
    "not_sure_hint": {"en": "Paste the full traceback (the last lines matter most) and I'll try again.",
                      "ko": "전체 트레이스백(특히 마지막 줄)을 붙여 주시면 다시 찾아보겠습니다.",
                      "zh": "请贴出完整的 traceback（最后几行最重要），我会再试一次。"},
    "verify": {"en": "Verify fix", "ko": "해결책 검증", "zh": "验证修复"},
    "share": {"en": "Share in channel", "ko": "채널에 공유", "zh": "分享到频道"},
    "shortened": {"en": "Shortened to fit Slack: {n} more parts not shown. `troubleshoot ask` prints all of it.",
                  "ko": "Slack 길이 제한으로 {n}개 부분을 생략했습니다. `troubleshoot ask`로 전체를 볼 수 있습니다.",
                  "zh": "为适应 Slack 的长度限制，省略了 {n} 个部分；`troubleshoot ask` 可显示全部内容。"},
    "ref": {"en": "answer", "ko": "답변", "zh": "回答"},
    "shared_by": {"en": "Shared by <@{user}>", "ko": "<@{user}> 님이 공유함", "zh": "由 <@{user}> 分享"},
    "usage": {"en": "Usage: `/troubleshoot <error text or traceback>`. Only you will see the answer; "
                    "a button shares it with the channel.",
              "ko": "사용법: `/troubleshoot <오류 메시지 또는 트레이스백>`. 답변은 본인에게만 보이며 버튼으로 채널에 공유할 수 있습니다.",
              "zh": "用法：`/troubleshoot <错误信息或 traceback>`。答案只有你能看到，可以用按钮分享到频道。"},
    "working": {"en": "Looking this up…", "ko": "찾아보는 중…", "zh": "正在查找…"},
    "no_error": {"en": "I couldn't find an error message here. Mention me in a thread under the error, or "
                       "paste the traceback.",
                 "ko": "여기서 오류 메시지를 찾지 못했습니다. 오류가 있는 스레드에서 저를 멘션하거나 트레이스백을 붙여 주세요.",
                 "zh": "这里没有找到错误信息。请在报错消息的线程里提及我，或贴出 traceback。"},
    "apology": {"en": "Sorry, something went wrong on my side. Reference: `{ref}`.",
                "ko": "죄송합니다. 처리 중 문제가 생겼습니다. 참조 번호: `{ref}`.",
                "zh": "抱歉，我这边出了问题。参考编号：`{ref}`。"},
    "already_answered": {"en": "I've already answered this message in its thread.",
                         "ko": "이 메시지에는 이미 스레드에서 답변했습니다.", "zh": "我已经在该消息的线程里回答过了。"},
    "file_skipped": {"en": "Skipped a file", "ko": "건너뛴 파일", "zh": "已跳过的文件"},
    # verification
    "verify_running": {"en": "Verifying your snippet in the sandbox", "ko": "샌드박스에서 스니펫을 검증하는 중",
                       "zh": "正在沙箱中验证你的代码片段"},
    "verify_queued": {"en": "queued", "ko": "대기 중", "zh": "排队中"},
    "verify_original": {"en": "running the original", "ko": "원본 실행 중", "zh": "运行原始代码"},
    "verify_fix": {"en": "fix {done} of {total}", "ko": "해결책 {done}/{total}", "zh": "修复 {done}/{total}"},
    "verify_finishing": {"en": "finishing", "ko": "마무리 중", "zh": "即将完成"},
    "dead_end_tag": {"en": "a dead end from the answer", "ko": "답변의 막다른 길", "zh": "答案中的死胡同"},
    "verify_done": {"en": "Verification finished", "ko": "검증 완료", "zh": "验证完成"},
    "reproduced": {"en": "The error reproduces", "ko": "오류가 재현됩니다", "zh": "错误已复现"},
    "not_reproduced": {"en": "The snippet did not raise the error", "ko": "스니펫에서 오류가 재현되지 않았습니다",
                       "zh": "代码片段没有复现该错误"},
    "output": {"en": "Output (last lines)", "ko": "출력 (마지막 줄)", "zh": "输出（最后几行）"},
    "full_output": {"en": "full output attached", "ko": "전체 출력은 첨부 파일", "zh": "完整输出见附件"},
    "already_running": {"en": "You already have a verification running; I'll start another when it ends.",
                        "ko": "이미 실행 중인 검증이 있습니다. 끝난 뒤에 다시 시도해 주세요.",
                        "zh": "你已有一个验证正在运行，请等它结束后再试。"},
    "paste_snippet": {"en": "Paste a minimal snippet that raises the error", "ko": "오류를 내는 최소 재현 코드를 붙여 넣으세요",
                      "zh": "粘贴一个能触发该错误的最小代码片段"},
    "snippet_label": {"en": "Repro snippet (Python)", "ko": "재현 코드 (Python)", "zh": "复现代码（Python）"},
    "run": {"en": "Run", "ko": "실행", "zh": "运行"},
    "cancel": {"en": "Cancel", "ko": "취소", "zh": "取消"},
    "modal_title": {"en": "Verify a fix", "ko": "해결책 검증", "zh": "验证修复"},
    "not_python": {"en": "That doesn't parse as Python: {error}", "ko": "Python 코드로 해석되지 않습니다: {error}",
                   "zh": "无法解析为 Python 代码：{error}"},
    # the short first answer, details, feedback
    "match_high": {"en": "high", "ko": "높음", "zh": "高"},
    "match_medium": {"en": "medium", "ko": "보통", "zh": "中"},
    "match_low": {"en": "low", "ko": "낮음", "zh": "低"},
    "match_is": {"en": "Match confidence: {level}", "ko": "일치 신뢰도: {level}", "zh": "匹配置信度：{level}"},
    "best_fix": {"en": "Best fix", "ko": "가장 좋은 해결책", "zh": "最佳修复"},
    "dont": {"en": "Don't", "ko": "하지 마세요", "zh": "不要"},
    "details": {"en": "All fixes & details", "ko": "모든 해결책과 자세히", "zh": "全部修复与详情"},
    "details_title": {"en": "All fixes & details", "ko": "모든 해결책과 자세히", "zh": "全部修复与详情"},
    "close": {"en": "Close", "ko": "닫기", "zh": "关闭"},
    "more_in_details": {"en": "{fixes} more fixes, {dead_ends} more dead ends in details",
                        "ko": "자세히 보기에 해결책 {fixes}개, 막다른 길 {dead_ends}개 더",
                        "zh": "详情中还有 {fixes} 个修复、{dead_ends} 个死胡同"},
    "diagnosis": {"en": "How to confirm it", "ko": "확인 방법", "zh": "如何确认"},
    "versions": {"en": "Version notes", "ko": "버전별 참고", "zh": "版本说明"},
    "why_title": {"en": "What went wrong?", "ko": "무엇이 문제였나요?", "zh": "哪里有问题？"},
    "why_label": {"en": "Why wasn't this answer helpful?", "ko": "이 답변이 도움이 되지 않은 이유는?",
                  "zh": "这个回答为什么没有帮助？"},
    "reason_wrong_error": {"en": "It's a different error", "ko": "다른 오류입니다", "zh": "不是这个错误"},
    "reason_fix_failed": {"en": "The fix did not work", "ko": "해결책이 통하지 않았습니다", "zh": "修复没有用"},
    "reason_unclear": {"en": "Unclear", "ko": "이해하기 어렵습니다", "zh": "看不懂"},
    "reason_other": {"en": "Something else", "ko": "기타", "zh": "其他"},
    "comment_label": {"en": "Anything to add? (optional)", "ko": "덧붙일 말 (선택)", "zh": "补充说明（可选）"},
    "send": {"en": "Send", "ko": "보내기", "zh": "发送"},
    "skip": {"en": "Skip", "ko": "건너뛰기", "zh": "跳过"},
    "thanks_reason": {"en": "Thanks, noted. It helps the next answer.", "ko": "감사합니다. 다음 답변에 반영됩니다.",
                      "zh": "谢谢，已记录，会改进之后的回答。"},
    "already_voted": {"en": "You already voted {vote} on this answer.", "ko": "이 답변에 이미 {vote}를 누르셨습니다.",
                      "zh": "你已经对这个回答投过 {vote}。"},
    "already_shared": {"en": "This answer is already shared in the channel.", "ko": "이 답변은 이미 채널에 공유되었습니다.",
                       "zh": "这个回答已经分享到频道了。"},
    "moved_to_dm": {"en": "I can't post here, so I sent the answer to <@{user}> in a direct message.",
                    "ko": "여기에 글을 올릴 수 없어 <@{user}> 님께 DM으로 답변을 보냈습니다.",
                    "zh": "我无法在这里发帖，已通过私信把答案发给 <@{user}>。"},
    "verify_checked": {"en": "{done} of {total} fixes checked", "ko": "해결책 {total}개 중 {done}개 확인",
                       "zh": "已检查 {done}/{total} 个修复"},
    "verify_now": {"en": "now trying", "ko": "지금 시도 중", "zh": "正在尝试"},
    "verify_for": {"en": "Requested by <@{user}>", "ko": "<@{user}> 님의 요청", "zh": "由 <@{user}> 发起"},
    "verify_fixed_by": {"en": "fixed by {fixes}", "ko": "해결한 방법: {fixes}", "zh": "有效的修复：{fixes}"},
    "verify_none_fixed": {"en": "none of the fixes made the error go away", "ko": "어떤 해결책도 오류를 없애지 못했습니다",
                          "zh": "没有一个修复能消除该错误"},
    "verify_off": {"en": "Verification is turned off in this channel.", "ko": "이 채널에서는 검증이 꺼져 있습니다.",
                   "zh": "本频道已关闭验证功能。"},
    # App Home
    "home_yours": {"en": "Your recent questions", "ko": "최근 질문", "zh": "你最近的问题"},
    "home_none": {"en": "Nothing yet: mention me under an error, DM me, or use /troubleshoot.",
                  "ko": "아직 없습니다. 오류 아래에서 저를 멘션하거나 DM 또는 /troubleshoot 를 사용하세요.",
                  "zh": "还没有。在报错下提及我、私信我，或使用 /troubleshoot。"},
    "home_unsure": {"en": "(no confident answer)", "ko": "(확실한 답 없음)", "zh": "（没有可靠的答案）"},
    "home_verified": {"en": "verified in the sandbox", "ko": "샌드박스에서 검증함", "zh": "已在沙箱中验证"},
    "home_not_reproduced": {"en": "snippet did not reproduce", "ko": "재현되지 않음", "zh": "未能复现"},
    "home_admin": {"en": "Workspace overview (admins)", "ko": "워크스페이스 현황 (관리자)", "zh": "工作区概况（管理员）"},
    "home_most_asked": {"en": "Most-asked errors", "ko": "가장 많이 물어본 오류", "zh": "最常被问的错误"},
    "home_unanswered": {"en": "Asked, but no confident answer", "ko": "확실한 답이 없었던 질문", "zh": "没有可靠答案的问题"},
    "home_fix_rates": {"en": "Verified fix rates (sandbox runs)", "ko": "검증된 해결률 (샌드박스 실행)",
                       "zh": "已验证的修复率（沙箱运行）"},
    "home_runs": {"en": "fixed {k} of {n} runs", "ko": "{n}회 중 {k}회 해결", "zh": "{n} 次中修复 {k} 次"},
    "home_none_yet": {"en": "nothing recorded yet", "ko": "아직 기록 없음", "zh": "暂无记录"},
    "home_window": {"en": "Most-asked: the last 30 days. Rates: every counted run.",
                    "ko": "많이 물어본 오류: 최근 30일. 해결률: 집계된 모든 실행.",
                    "zh": "常见错误：最近 30 天。修复率：所有计入的运行。"},
    # /troubleshoot config
    "on": {"en": "on", "ko": "켜짐", "zh": "开"},
    "off": {"en": "off", "ko": "꺼짐", "zh": "关"},
    "config_lang_auto": {"en": "the asker's", "ko": "질문자의 언어", "zh": "提问者的语言"},
    "config_now": {"en": "Settings for <#{channel}>: auto-answer *{auto}*, language *{language}*, Verify fix *{verify}*.",
                   "ko": "<#{channel}> 설정: 자동 답변 *{auto}*, 언어 *{language}*, 해결책 검증 *{verify}*.",
                   "zh": "<#{channel}> 的设置：自动回答 *{auto}*，语言 *{language}*，验证修复 *{verify}*。"},
    "config_usage": {"en": "Change them with `/troubleshoot config auto=on|off lang=en|ko|zh|auto verify=on|off` "
                           "(workspace admins and the channel's creator).",
                     "ko": "`/troubleshoot config auto=on|off lang=en|ko|zh|auto verify=on|off` 로 바꿀 수 있습니다 "
                           "(워크스페이스 관리자와 채널 생성자).",
                     "zh": "用 `/troubleshoot config auto=on|off lang=en|ko|zh|auto verify=on|off` 修改"
                           "（工作区管理员和频道创建者）。"},
    "config_bad": {"en": "I don't understand: `{words}`.", "ko": "이해하지 못했습니다: `{words}`.", "zh": "无法理解：`{words}`。"},
    "config_denied": {"en": "Only workspace admins and the channel's creator can change this channel's settings.",
                      "ko": "워크스페이스 관리자와 채널 생성자만 이 채널의 설정을 바꿀 수 있습니다.",
                      "zh": "只有工作区管理员和频道创建者可以修改本频道的设置。"},
    "config_saved": {"en": "Saved.", "ko": "저장했습니다.", "zh": "已保存。"},
}
WORDS["others"] = WORDS["also"]  # the terminal's name for it

STATUS_WORDS = {
    "fixed": {"en": "fixed", "ko": "해결됨", "zh": "已修复"},
    "still_fails": {"en": "still fails", "ko": "여전히 실패", "zh": "仍然失败"},
    "new_error": {"en": "new error", "ko": "새 오류", "zh": "新错误"},
    "not_applicable": {"en": "not applicable", "ko": "적용 불가", "zh": "不适用"},
    "timeout": {"en": "timed out", "ko": "시간 초과", "zh": "超时"},
}



def t(key: str, lang: str | None, **values) -> str:
    table = WORDS[key]
    text = table.get(lang or "en") or table["en"]
    return text.format(**values) if values else text


def labels(lang: str | None) -> dict[str, str]:
    """Every word in one language (English where a translation is missing)."""
    return {key: t(key, lang) for key in WORDS if "{" not in WORDS[key]["en"]}


def status_word(status: str, lang: str | None) -> str:
    words = STATUS_WORDS.get(status)
    return (words.get(lang or "en") or words["en"]) if words else status
