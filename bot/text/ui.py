"""The bot's own words in the three answer languages, for every surface: the terminal
(bot/answer/render.py, code questions in bot/verify/code_question.py), Slack (bot/slack),
the knowledge pages (bot/pages) and the evidence behind a rate (bot/evidence/display.py)
read this one table, so a word has one translation everywhere. Knowledge text comes
localised from the knowledge base; these are only the labels and short messages around it.

    t("root_cause", "ko") -> "근본 원인"; t("shared_by", "en", user="U1") -> "Shared by <@U1>"
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
    # a team thread (Slack export) whose reply was marked as the fix
    "thread_solved": {"en": "marked solved", "ko": "해결로 표시됨", "zh": "已标记为解决"},
    # a team thread stored as an article by `kb add export.zip` (bot/kb/slack_export.py)
    "thread_question": {"en": "Question", "ko": "질문", "zh": "问题"},
    "thread_reply": {"en": "Reply", "ko": "답변", "zh": "回复"},
    "thread_asked_by": {"en": "asked by", "ko": "질문자", "zh": "提问者"},
    "confidence": {"en": "Confidence", "ko": "신뢰도", "zh": "置信度"},
    "evidence": {"en": "Evidence", "ko": "근거", "zh": "证据"},
    "also": {"en": "Also possible", "ko": "다른 후보", "zh": "其他候选"},
    # a measured fix rate: "worked 80% · ..." in Slack, "fixes it 80% (...)" in a terminal
    "works": {"en": "worked", "ko": "해결률", "zh": "成功率"},
    "success": {"en": "fixes it", "ko": "해결률", "zh": "成功率"},
    # --- the terminal (bot/answer/render.py) ---
    "caveats": {"en": "Caveat", "ko": "주의", "zh": "注意"},
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
    "closest": {"en": "Closest, with low confidence", "ko": "가장 가까운 후보 (낮은 신뢰도)",
                "zh": "最接近的候选（置信度低）"},
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
              "ko": "사용법: `/troubleshoot <오류 메시지 또는 트레이스백>`. 답변은 본인에게만 보이며 "
                    "버튼으로 채널에 공유할 수 있습니다.",
              "zh": "用法：`/troubleshoot <错误信息或 traceback>`。答案只有你能看到，可以用按钮分享到频道。"},
    "working": {"en": "Looking this up…", "ko": "찾아보는 중…", "zh": "正在查找…"},
    "no_error": {"en": "I couldn't find an error message here. Mention me in a thread under the error, or "
                       "paste the traceback.",
                 "ko": "여기서 오류 메시지를 찾지 못했습니다. 오류가 있는 스레드에서 저를 멘션하거나 "
                       "트레이스백을 붙여 주세요.",
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
    "verify_infrastructure": {"en": "Not verified: the worker's GPU failed its health check, so your snippet was not "
                                    "run. This is a fault of the worker, not of your code, and nothing was recorded; "
                                    "try again later.",
                              "ko": "검증하지 못했습니다: 워커의 GPU가 상태 점검을 "
                                    "통과하지 못해 스니펫을 실행하지 않았습니다. 코드가 "
                                    "아니라 워커의 문제이며 아무것도 기록되지 않았습니다. "
                                    "나중에 다시 시도해 주세요.",
                              "zh": "未能验证：工作节点的 GPU 未通过健康检查，所以没有运行"
                                    "你的代码片段。这是工作节点的故障，不是你的代码的问题，"
                                    "也没有记录任何结果；请稍后再试。"},
    "output": {"en": "Output (last lines)", "ko": "출력 (마지막 줄)", "zh": "输出（最后几行）"},
    "full_output": {"en": "full output attached", "ko": "전체 출력은 첨부 파일", "zh": "完整输出见附件"},
    "already_running": {"en": "You already have a verification running, so this one was not started; "
                               "try it again when that one ends.",
                        "ko": "이미 실행 중인 검증이 있습니다. 끝난 뒤에 다시 시도해 주세요.",
                        "zh": "你已有一个验证正在运行，请等它结束后再试。"},
    "paste_snippet": {"en": "Paste a minimal snippet that raises the error",
                      "ko": "오류를 내는 최소 재현 코드를 붙여 넣으세요", "zh": "粘贴一个能触发该错误的最小代码片段"},
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
    "diagnosis": {"en": "Diagnosis", "ko": "진단", "zh": "诊断"},
    # a question asked in a thread the bot answered, answered from that thread's entry
    "workaround": {"en": "Fix", "ko": "해결책", "zh": "修复方法"},
    "followup_from_entry": {"en": "From _{title}_:", "ko": "_{title}_ 항목의 내용:", "zh": "来自「{title}」："},
    "followup_not_said": {"en": "_{title}_ does not say. Here is what it does say:",
                          "ko": "_{title}_ 항목에는 그 내용이 없습니다. 이 항목이 말하는 것은 다음과 같습니다:",
                          "zh": "「{title}」没有提到这一点。它说的是："},
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
    "already_shared": {"en": "This answer is already shared in the channel.",
                       "ko": "이 답변은 이미 채널에 공유되었습니다.", "zh": "这个回答已经分享到频道了。"},
    "moved_to_dm": {"en": "I can't post here, so I sent the answer to <@{user}> in a direct message.",
                    "ko": "여기에 글을 올릴 수 없어 <@{user}> 님께 DM으로 답변을 보냈습니다.",
                    "zh": "我无法在这里发帖，已通过私信把答案发给 <@{user}>。"},
    "verify_checked": {"en": "{done} of {total} fixes checked", "ko": "해결책 {total}개 중 {done}개 확인",
                       "zh": "已检查 {done}/{total} 个修复"},
    "verify_now": {"en": "now trying", "ko": "지금 시도 중", "zh": "正在尝试"},
    "verify_for": {"en": "Requested by <@{user}>", "ko": "<@{user}> 님의 요청", "zh": "由 <@{user}> 发起"},
    "verify_fixed_by": {"en": "fixed by {fixes}", "ko": "해결한 방법: {fixes}", "zh": "有效的修复：{fixes}"},
    "verify_none_fixed": {"en": "none of the fixes made the error go away",
                          "ko": "어떤 해결책도 오류를 없애지 못했습니다", "zh": "没有一个修复能消除该错误"},
    # the fix the answer shows first, when Verify has no patch to try it with
    "verify_no_patch": {"en": "not tested: no automatic patch", "ko": "테스트하지 않음: 자동 패치가 없습니다",
                        "zh": "未测试：没有自动补丁"},
    # a dead end that ran cleanly on the snippet: never worded as a fix
    "verify_dead_end_ran": {"en": "a listed dead end ran without error here",
                            "ko": "목록에 있는 막다른 길이 여기서는 오류 없이 실행됨",
                            "zh": "列出的死胡同在这里运行时没有报错"},
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
    "home_admin": {"en": "Workspace overview (admins)", "ko": "워크스페이스 현황 (관리자)",
                   "zh": "工作区概况（管理员）"},
    "most_asked": {"en": "Most-asked errors", "ko": "가장 많이 물어본 오류", "zh": "最常被问的错误"},
    "unanswered": {"en": "Asked, but no confident answer", "ko": "확실한 답이 없었던 질문", "zh": "没有可靠答案的问题"},
    "home_fix_rates": {"en": "Verified fix rates (sandbox runs)", "ko": "검증된 해결률 (샌드박스 실행)",
                       "zh": "已验证的修复率（沙箱运行）"},
    "home_runs": {"en": "fixed {k} of {n} runs", "ko": "{n}회 중 {k}회 해결", "zh": "{n} 次中修复 {k} 次"},
    "home_votes": {"en": "Votes on answers (👍/👎, not runs)", "ko": "답변 평가 (👍/👎, 실행 아님)",
                   "zh": "答案评价（👍/👎，不是运行）"},
    "nothing_yet": {"en": "Nothing recorded yet.", "ko": "아직 기록이 없습니다.", "zh": "尚无记录。"},
    "home_window": {"en": "Most-asked: the last 30 days. Rates: every counted run.",
                    "ko": "많이 물어본 오류: 최근 30일. 해결률: 집계된 모든 실행.",
                    "zh": "常见错误：最近 30 天。修复率：所有计入的运行。"},
    # /troubleshoot config
    "on": {"en": "on", "ko": "켜짐", "zh": "开"},
    "off": {"en": "off", "ko": "꺼짐", "zh": "关"},
    "config_lang_auto": {"en": "the asker's", "ko": "질문자의 언어", "zh": "提问者的语言"},
    "config_now": {"en": "Settings for <#{channel}>: auto-answer *{auto}*, language *{language}*, "
                         "Verify fix *{verify}*.",
                   "ko": "<#{channel}> 설정: 자동 답변 *{auto}*, 언어 *{language}*, 해결책 검증 *{verify}*.",
                   "zh": "<#{channel}> 的设置：自动回答 *{auto}*，语言 *{language}*，验证修复 *{verify}*。"},
    "config_usage": {"en": "Change them with `/troubleshoot config auto=on|off lang=en|ko|zh|auto verify=on|off` "
                           "(workspace admins and the channel's creator).",
                     "ko": "`/troubleshoot config auto=on|off lang=en|ko|zh|auto verify=on|off` 로 바꿀 수 있습니다 "
                           "(워크스페이스 관리자와 채널 생성자).",
                     "zh": "用 `/troubleshoot config auto=on|off lang=en|ko|zh|auto verify=on|off` 修改"
                           "（工作区管理员和频道创建者）。"},
    "config_bad": {"en": "I don't understand: `{words}`.", "ko": "이해하지 못했습니다: `{words}`.",
                   "zh": "无法理解：`{words}`。"},
    "config_denied": {"en": "Only workspace admins and the channel's creator can change this channel's settings.",
                      "ko": "워크스페이스 관리자와 채널 생성자만 이 채널의 설정을 바꿀 수 있습니다.",
                      "zh": "只有工作区管理员和频道创建者可以修改本频道的设置。"},
    "config_saved": {"en": "Saved.", "ko": "저장했습니다.", "zh": "已保存。"},
    # --- code questions: Python code without error text (bot/verify/code_question.py) ---
    "code_ran_clean": {
        "en": "It ran without an error on torch {torch} ({device}).",
        "ko": "torch {torch} ({device})에서 오류 없이 실행되었습니다.",
        "zh": "在 torch {torch}（{device}）上运行没有报错。",
    },
    "code_ran_clean_hint": {
        "en": "If it fails for you, paste the error it prints (the last lines of the traceback), or the "
              "part of the code that differs from this snippet.",
        "ko": "실행 환경에서 실패한다면 출력된 오류(트레이스백의 마지막 줄)나 이 스니펫과 다른 부분의 "
              "코드를 붙여 주세요.",
        "zh": "如果在你那里会失败，请贴出它打印的错误（traceback 的最后几行），"
              "或与这段代码不同的部分。",
    },
    "code_raised": {
        "en": "Ran your snippet on torch {torch} ({device}): it raised {error}.",
        "ko": "torch {torch} ({device})에서 스니펫을 실행했더니 {error} 오류가 발생했습니다.",
        "zh": "在 torch {torch}（{device}）上运行了你的代码片段：它抛出了 {error}。",
    },
    "code_timeout": {
        "en": "Ran your snippet on torch {torch} ({device}): it did not finish within the sandbox's time limit, "
              "so there is no error to answer from.",
        "ko": "torch {torch} ({device})에서 스니펫을 실행했지만 샌드박스 시간 제한 안에 끝나지 않아 "
              "답할 오류가 없습니다.",
        "zh": "在 torch {torch}（{device}）上运行了你的代码片段：它没有在沙箱的时间限制内结束，"
              "因此没有可以分析的错误。",
    },
    "code_limit": {
        "en": "Ran your snippet on torch {torch} ({device}): {why}, so there is no Python error to answer from.",
        "ko": "torch {torch} ({device})에서 스니펫을 실행했지만 {why}. 답할 파이썬 오류가 없습니다.",
        "zh": "在 torch {torch}（{device}）上运行了你的代码片段：{why}，因此没有可以分析的 Python 错误。",
    },
    "code_not_runnable": {
        "en": "This is Python code without an error message, but not a whole program: it uses {names} without "
              "defining or importing {them}, so I can't run it. Paste the error it raises (the traceback), or a "
              "snippet that runs on its own.",
        "ko": "오류 메시지 없이 파이썬 코드만 있는데, 완전한 프로그램이 아닙니다: "
              "{names}을(를) 정의하거나 import하지 않고 사용하므로 실행할 수 없습니다. "
              "발생한 오류(트레이스백)나 단독으로 실행되는 스니펫을 붙여 주세요.",
        "zh": "这是一段没有错误信息的 Python 代码，但不是完整的程序：它使用了 {names}，却没有定义或导入，所以无法运行。"
              "请贴出它抛出的错误（traceback），或一段可以单独运行的代码。",
    },
    "code_not_run": {
        "en": "This is Python code without an error message ({lines} lines); not run (--no-run). Without "
              "--no-run it runs in the sandbox and the answer comes from the error it really raises.",
        "ko": "오류 메시지 없는 파이썬 코드입니다 ({lines}줄). --no-run이라 실행하지 않았습니다. "
              "--no-run 없이 실행하면 샌드박스에서 돌려 실제 발생한 오류로 답합니다.",
        "zh": "这是一段没有错误信息的 Python 代码（{lines} 行）；因为 --no-run 没有运行。去掉 --no-run 会在沙箱中运行，"
              "并根据实际抛出的错误回答。",
    },
    "code_running": {"en": "Running your snippet in the sandbox…", "ko": "샌드박스에서 스니펫을 실행하는 중…",
                     "zh": "正在沙箱中运行你的代码片段…"},
    "code_queued": {"en": "Your earlier run is still going; this snippet is queued and runs as soon as it ends.",
                    "ko": "앞선 실행이 아직 진행 중입니다. 이 스니펫은 대기열에 넣었고, "
                          "그 실행이 끝나는 대로 실행합니다.",
                    "zh": "你之前的运行还没有结束；这段代码已排队，等它结束后立即运行。"},
    "code_queue_full": {"en": "You already have {count} snippets waiting behind a run, so this one was not queued; "
                             "send it again when one of them has run.",
                        "ko": "이미 {count}개의 스니펫이 실행을 기다리고 있어 이 스니펫은 대기열에 넣지 않았습니다. "
                              "그중 하나가 실행된 뒤 다시 보내 주세요.",
                        "zh": "你已有 {count} 段代码在排队等待运行，所以这一段没有加入队列；"
                              "请等其中一段运行后再发送。"},
    "tried_on_yours": {"en": "Tried on your snippet", "ko": "이 스니펫에서 시도한 결과",
                       "zh": "在你的代码上尝试的结果"},
    # --- the choices tier (bot/retrieval/tiers.py) ---
    "choices_intro": {
        "en": "Is it one of these? Only wording similarity points to them, not your error's own text, so I "
              "won't pick one for you:",
        "ko": "다음 중 하나인가요? 오류 메시지 자체가 아니라 표현의 유사도만으로 찾은 후보라서 제가 골라 드리지 "
              "않겠습니다:",
        "zh": "是下面其中之一吗？这些候选只是措辞相似，并非由报错本身确认，所以我不替你选："},
    "choices_ambiguous": {
        "en": "Your error's text fits more than one known error equally well. Which one is it?",
        "ko": "오류 메시지가 여러 알려진 오류에 똑같이 들어맞습니다. 어느 쪽인가요?",
        "zh": "这段报错同样符合多个已知错误。是哪一个？"},
    "choices_pick_cli": {"en": "Pick one: run the same command again with --pick N.",
                         "ko": "하나를 고르세요: 같은 명령에 --pick N 을 붙여 다시 실행하세요.",
                         "zh": "选一个：在同一条命令后加上 --pick N 再运行一次。"},
    "choices_pick_slack": {"en": "Click the one that fits and I'll show its fixes.",
                           "ko": "맞는 것을 누르면 해결 방법을 보여 드립니다.",
                           "zh": "点击符合的那一项，我会给出它的解决办法。"},
    "already_picked": {"en": "This one was picked already.", "ko": "이미 선택된 답입니다.",
                       "zh": "这一项已经被选过了。"},
    "picked": {"en": "You picked this one", "ko": "선택하신 항목", "zh": "你选择的条目"},
    "team_intro": {"en": "From your team's own knowledge (not checked by the bot):",
                   "ko": "팀이 직접 남긴 지식에서 찾은 내용 (봇이 검증하지 않음):",
                   "zh": "来自团队自己的知识（机器人未验证）："},
    "wrapper_note": {"en": "Reported through {wrapper}; this is the error it wraps, the cause.",
                     "ko": "{wrapper}를 통해 보고된 오류입니다. 아래는 그 안에 담긴 원래 오류(원인)에 대한 답입니다.",
                     "zh": "这个错误经由 {wrapper} 报告；下面回答的是它包裹的原始错误（原因）。"},
    "screenshot_note": {"en": "I can't read screenshots: paste the error as text.",
                        "ko": "스크린샷은 읽을 수 없습니다. 오류를 텍스트로 붙여 넣어 주세요.",
                        "zh": "我读不了截图，请把报错以文本形式贴上来。"},
    # --- instead of an entry: no error, or another library's (bot/answer/notices.py) ---
    "notice_no_error": {
        "en": "I answer PyTorch errors, and I don't see one in this message. Paste the error you get "
              "(the whole traceback, or at least its last lines) and I'll look it up.",
        "ko": "PyTorch 오류에 답하는 봇인데, 이 메시지에서는 오류를 찾지 못했습니다. 받은 오류를 붙여 넣어 주세요"
              "(전체 트레이스백, 적어도 마지막 몇 줄).",
        "zh": "我专门回答 PyTorch 报错，但这条消息里没有看到报错。请把遇到的错误贴上来（完整的 traceback，"
              "至少最后几行），我来查。",
    },
    "notice_other_library": {
        "en": "This error comes from {name}, not from PyTorch ({evidence}), so no PyTorch entry fits it. {look_for}",
        "ko": "이 오류는 PyTorch가 아니라 {name}에서 발생했습니다({evidence}). "
              "그래서 PyTorch 항목으로 답하지 않습니다. {look_for}",
        "zh": "这个错误来自 {name}，不是 PyTorch（{evidence}），所以没有对应的 PyTorch 条目。{look_for}",
    },
    "other_by_exception": {"en": "the exception is {x}", "ko": "예외 타입 {x}", "zh": "异常类型为 {x}"},
    "other_by_frame": {"en": "it was raised in {x}", "ko": "{x}에서 발생", "zh": "在 {x} 中抛出"},
    "other_by_message": {"en": "{name} prints \"{x}\"", "ko": "\"{x}\"는 {name}의 메시지",
                         "zh": "\"{x}\" 是 {name} 的信息"},
    # --- the evidence behind a rate (bot/evidence/display.py); {s}: the English plural ending ---
    "evidence_fixed": {"en": "fixed {k} of {n} verified run{s}", "ko": "검증 실행 {n}회 중 {k}회 해결",
                       "zh": "{n} 次验证运行中 {k} 次修复"},
    "evidence_failed": {"en": "failed in {k} of {n} verified run{s}", "ko": "검증 실행 {n}회 중 {k}회 실패",
                        "zh": "{n} 次验证运行中 {k} 次失败"},
    "evidence_none": {"en": "not verified yet", "ko": "아직 검증되지 않음", "zh": "尚未验证"},
    "evidence_on": {"en": " on torch {versions}", "ko": " (torch {versions})", "zh": "（torch {versions}）"},
    "evidence_range": {"en": "{low} to {high}", "ko": "{low}~{high}", "zh": "{low} 至 {high}"},
    "evidence_votes": {"en": "👍 {up} 👎 {down} on answers", "ko": "답변 평가 👍 {up} 👎 {down}",
                       "zh": "答案评价 👍 {up} 👎 {down}"},
    "evidence_refuted": {"en": "listed as a fix, but verified runs keep refuting it",
                         "ko": "해결 방법으로 올라 있지만 검증 실행에서 계속 실패합니다",
                         "zh": "虽被列为解决方法，但验证运行一再证明它无效"},
    "evidence_estimate": {"en": "team estimate, not yet verified", "ko": "팀 추정치, 아직 검증되지 않음",
                          "zh": "团队估计，尚未验证"},
    # --- a claim the knowledge base's own repro proved (knowledge/proofs.json, bot/kb/proofs.py):
    # shipped with the knowledge, apart from our runs and votes; never a percentage ---
    "proof_fixed": {"en": "fix proven on torch {versions}, {device}, by the knowledge base's own repro",
                    "ko": "지식 베이스의 재현 코드로 torch {versions}({device})에서 해결이 증명됨",
                    "zh": "已用知识库自带的复现代码在 torch {versions}（{device}）上证明有效"},
    "proof_failed": {"en": "dead end confirmed on torch {versions}, {device}, by the knowledge base's own repro",
                     "ko": "지식 베이스의 재현 코드로 torch {versions}({device})에서 실패가 확인됨",
                     "zh": "已用知识库自带的复现代码在 torch {versions}（{device}）上确认无效"},
    "proof_and": {"en": " and ", "ko": ", ", "zh": " 和 "},
    "proof_badge": {"en": "proven", "ko": "증명됨", "zh": "已证明"},
    # --- the knowledge pages (bot/pages); their headings use the shared words above ---
    "kb": {"en": "PyTorch error knowledge base", "ko": "PyTorch 오류 지식 베이스", "zh": "PyTorch 错误知识库"},
    "entries": {"en": "{n} entries", "ko": "항목 {n}개", "zh": "共 {n} 个条目"},
    "search": {"en": "Search errors", "ko": "오류 검색", "zh": "搜索错误"},
    "search_hint": {"en": "Filter by words of the error message, the title or the id",
                    "ko": "오류 메시지, 제목, id의 단어로 거르기", "zh": "按错误信息、标题或 id 中的词筛选"},
    "search_button": {"en": "Search", "ko": "검색", "zh": "搜索"},
    "no_results": {"en": "No entry matches “{q}”.", "ko": "“{q}”에 맞는 항목이 없습니다.",
                   "zh": "没有与“{q}”匹配的条目。"},
    "results": {"en": "{n} of {total} entries match “{q}”.", "ko": "항목 {total}개 중 {n}개가 “{q}”에 맞습니다.",
                "zh": "{total} 个条目中有 {n} 个与“{q}”匹配。"},
    "dashboard": {"en": "Dashboard", "ko": "대시보드", "zh": "统计面板"},
    "all_entries": {"en": "All entries", "ko": "전체 항목", "zh": "全部条目"},
    "also_as": {"en": "Also available as", "ko": "다른 형식", "zh": "其他格式"},
    "matches": {"en": "Messages it matches", "ko": "일치하는 메시지", "zh": "匹配的错误信息"},
    "exception": {"en": "Exception", "ko": "예외", "zh": "异常"},
    "fix_rate": {"en": "Best measured fix rate", "ko": "측정된 최고 해결률", "zh": "实测最佳修复率"},
    "no_measured": {"en": "No fix measured yet: every rate below is a team estimate, not yet verified.",
                    "ko": "아직 측정된 해결 방법이 없습니다. 아래의 해결률은 모두 팀 추정치이며 "
                          "아직 검증되지 않았습니다.",
                    "zh": "尚无实测的修复方法：下面的比率都是团队估计，尚未验证。"},
    "answers": {"en": "answers given", "ko": "답변 횟수", "zh": "回答次数"},
    "verifications": {"en": "verified runs", "ko": "검증 실행", "zh": "验证运行"},
    "reproduced_runs": {"en": "reproduced the error", "ko": "오류 재현", "zh": "复现了错误"},
    "askers": {"en": "distinct askers", "ko": "질문자 수", "zh": "提问者人数"},
    "votes": {"en": "votes on answers", "ko": "답변 평가", "zh": "答案评价"},
    "first_seen": {"en": "First seen", "ko": "처음 확인", "zh": "首次出现"},
    "last_seen": {"en": "Last seen", "ko": "마지막 확인", "zh": "最近出现"},
    "never": {"en": "not yet", "ko": "아직 없음", "zh": "尚无"},
    "runs_table": {"en": "Verified runs by torch version and device", "ko": "torch 버전과 장치별 검증 실행",
                   "zh": "按 torch 版本和设备统计的验证运行"},
    "torch": {"en": "torch", "ko": "torch", "zh": "torch"},
    "device": {"en": "device", "ko": "장치", "zh": "设备"},
    "runs": {"en": "runs", "ko": "실행", "zh": "运行"},
    "version_range": {"en": "torch versions", "ko": "torch 버전", "zh": "torch 版本"},
    "message": {"en": "message there", "ko": "해당 버전의 메시지", "zh": "该版本的错误信息"},
    "note": {"en": "note", "ko": "참고", "zh": "说明"},
    "symptoms": {"en": "Symptoms", "ko": "증상", "zh": "症状"},
    "scenarios": {"en": "Scenarios", "ko": "상황별 예", "zh": "常见场景"},
    "related": {"en": "Related errors", "ko": "관련 오류", "zh": "相关错误"},
    "code": {"en": "code", "ko": "코드", "zh": "代码"},
    "measured": {"en": "measured", "ko": "측정값", "zh": "实测"},
    "estimate_badge": {"en": "estimate", "ko": "추정치", "zh": "估计"},
    # a share of 👍 among 5+ votes, with no verified run behind it
    "votes_badge": {"en": "from votes", "ko": "답변 평가 기반", "zh": "基于答案评价"},
    "refuted_badge": {"en": "refuted", "ko": "반증됨", "zh": "已被否定"},
    "store_none": {"en": "No evidence store yet: every rate is a team estimate, not yet verified.",
                   "ko": "아직 근거 저장소가 없습니다. 모든 해결률은 팀 추정치이며 아직 검증되지 않았습니다.",
                   "zh": "尚无证据库：所有比率都是团队估计，尚未验证。"},
    "store_error": {"en": "The evidence store could not be read ({why}): showing the knowledge base's estimates.",
                    "ko": "근거 저장소를 읽을 수 없어({why}) 지식 베이스의 추정치를 보여 줍니다.",
                    "zh": "无法读取证据库（{why}），显示的是知识库中的估计。"},
    "fixes_by_evidence": {"en": "Fixes by their evidence", "ko": "근거별 해결 방법", "zh": "按证据排列的解决方法"},
    "history": {"en": "Evidence per week", "ko": "주별 근거", "zh": "每周证据"},
    "history_note": {"en": "verified workaround runs that fixed the error and that did not, answers, votes",
                     "ko": "오류를 해결한 검증 실행과 해결하지 못한 실행, 답변, 평가",
                     "zh": "修复了错误与未能修复的验证运行、回答、评价"},
    "failed": {"en": "failed", "ko": "실패", "zh": "失败"},
    "held": {"en": "held", "ko": "보류", "zh": "暂缓计入"},
    "nearest_entry": {"en": "nearest entry", "ko": "가장 가까운 항목", "zh": "最接近的条目"},
    "without_runs": {"en": "Entries without a verified fix run", "ko": "검증 실행이 없는 항목",
                     "zh": "没有验证运行的条目"},
    "times": {"en": "{n} time{s}", "ko": "{n}회", "zh": "{n} 次"},
    "times_asked": {"en": "Times asked", "ko": "질문 횟수", "zh": "提问次数"},
    "entries_one": {"en": "1 entry", "ko": "항목 1개", "zh": "共 1 个条目"},
    # the list says once what most rows would repeat (bot/pages/templates/index.html)
    "index_not_run": {"en": "An entry without a kb verify note has not been run by kb verify yet.",
                      "ko": "kb verify 표시가 없는 항목은 아직 kb verify로 실행하지 않았습니다.",
                      "zh": "没有 kb verify 标注的条目尚未由 kb verify 运行。"},
    "index_unmeasured": {"en": "An entry without a percentage has no measured fix yet: its rates are team "
                               "estimates, not yet verified.",
                         "ko": "해결률(%)이 없는 항목은 아직 측정된 해결 방법이 없습니다. 그 해결률은 팀 추정치이며 "
                               "아직 검증되지 않았습니다.",
                         "zh": "没有百分比的条目尚无实测的修复方法：其比率是团队估计，尚未验证。"},
    "patterns_fold": {"en": "Technical: the patterns the bot matches (regular expressions)",
                      "ko": "기술 정보: 봇이 찾는 패턴 (정규 표현식)",
                      "zh": "技术信息：机器人匹配的模式（正则表达式）"},
    "week": {"en": "week of", "ko": "주 시작일", "zh": "周起始日"},
    "question": {"en": "Question (paths, numbers and names replaced)",
                 "ko": "질문 (경로, 숫자, 이름은 자리표시자로 바꿈)", "zh": "提问（路径、数字和名称已替换为占位符）"},
    "not_reproducible": {"en": "Not reproducible on the current torch", "ko": "현재 torch에서는 재현되지 않음",
                         "zh": "在当前 torch 上无法复现"},
    "aliases": {"en": "Also known as", "ko": "다른 id", "zh": "别名"},
    "entry": {"en": "Entry", "ko": "항목", "zh": "条目"},
    "language": {"en": "Language", "ko": "언어", "zh": "语言"},
    # what `kb verify` proved of an entry (kb_status_text below)
    "kb_status": {"en": "Proven by kb verify", "ko": "kb verify 검증", "zh": "kb verify 验证"},
    "kb_status_reproduced": {"en": "reproduced by kb verify", "ko": "kb verify로 재현됨", "zh": "已由 kb verify 复现"},
    "kb_status_not_reproduced": {"en": "kb verify did not reproduce it", "ko": "kb verify에서 재현되지 않음",
                                 "zh": "kb verify 未能复现"},
    "kb_status_not_run": {"en": "kb verify has not run it yet", "ko": "아직 kb verify로 실행하지 않음",
                          "zh": "kb verify 尚未运行"},
    "kb_status_no_repro": {"en": "no repro snippet", "ko": "재현 코드 없음", "zh": "没有复现代码"},
    "kb_status_needs": {"en": "its repro needs {what}", "ko": "재현에 {what} 필요", "zh": "复现需要{what}"},
    "on_torch": {"en": "torch {v}", "ko": "torch {v}", "zh": "torch {v}"},
    "needs_cuda": {"en": "a GPU", "ko": "GPU", "zh": " GPU"},
    "needs_distributed": {"en": "several processes", "ko": "여러 프로세스", "zh": "多个进程"},
    "needs_windows": {"en": "Windows", "ko": "Windows", "zh": " Windows"},
    "needs_install": {"en": "a broken installation", "ko": "깨진 설치 환경", "zh": "损坏的安装环境"},
    "needs_mps": {"en": "Apple MPS", "ko": "Apple MPS", "zh": " Apple MPS"},
    # the areas the entry list is grouped by (bot/pages/areas.py)
    "area_distributed": {"en": "Distributed training", "ko": "분산 학습", "zh": "分布式训练"},
    "area_install": {"en": "Installation and environment", "ko": "설치와 환경", "zh": "安装与环境"},
    "area_saving": {"en": "Saving and loading", "ko": "저장과 불러오기", "zh": "保存与加载"},
    "area_compile": {"en": "Compile, TorchScript and export", "ko": "컴파일, TorchScript, 내보내기",
                     "zh": "编译、TorchScript 与导出"},
    "area_data": {"en": "Data loading", "ko": "데이터 로딩", "zh": "数据加载"},
    "area_devices": {"en": "CUDA, GPUs and devices", "ko": "CUDA, GPU, 장치", "zh": "CUDA、GPU 与设备"},
    "area_training": {"en": "Optimizers and training loops", "ko": "옵티마이저와 학습 루프", "zh": "优化器与训练循环"},
    "area_autograd": {"en": "Autograd", "ko": "자동 미분(autograd)", "zh": "自动求导（autograd）"},
    "area_losses": {"en": "Losses and targets", "ko": "손실 함수와 정답", "zh": "损失函数与目标"},
    "area_dtypes": {"en": "Data types", "ko": "데이터 타입", "zh": "数据类型"},
    "area_shapes": {"en": "Shapes and indexing", "ko": "텐서 크기와 인덱싱", "zh": "形状与索引"},
    "area_other": {"en": "Other errors", "ko": "기타 오류", "zh": "其他错误"},
}
WORDS["others"] = WORDS["also"]  # the terminal's name for it

STATUS_WORDS = {
    "fixed": {"en": "fixed", "ko": "해결됨", "zh": "已修复"},
    "still_fails": {"en": "still fails", "ko": "여전히 실패", "zh": "仍然失败"},
    "new_error": {"en": "new error", "ko": "새 오류", "zh": "新错误"},
    "not_applicable": {"en": "not applicable", "ko": "적용 불가", "zh": "不适用"},
    "timeout": {"en": "timed out", "ko": "시간 초과", "zh": "超时"},
}
WORDS["fixed"] = STATUS_WORDS["fixed"]  # the pages' charts: runs that fixed the error

# Each language by its own name (the pages' language links).
LANG_NAMES = {"en": "English", "ko": "한국어", "zh": "中文"}


def t(key: str, lang: str | None, **values) -> str:
    table = WORDS[key]
    text = table.get(lang or "en") or table["en"]
    return text.format(**values) if values else text


def labels(lang: str | None) -> dict[str, str]:
    """Every word in one language (English where a translation is missing); words with
    placeholders as they are, for `.format(...)`."""
    return {key: table.get(lang or "en") or table["en"] for key, table in WORDS.items()}


def status_word(status: str, lang: str | None) -> str:
    words = STATUS_WORDS.get(status)
    return (words.get(lang or "en") or words["en"]) if words else status


def kb_status_text(status: dict, lang: str | None) -> str:
    """What `kb verify` proved of an entry ({"status": "reproduced", "torch": "2.13.0"}, or
    "needs_cuda", ...), in words."""
    kind = status.get("status") or "not_run"
    if kind.startswith("needs_"):
        what = kind.removeprefix("needs_")
        return t("kb_status_needs", lang, what=t(kind, lang) if kind in WORDS else what)
    text = t(f"kb_status_{kind}", lang) if f"kb_status_{kind}" in WORDS else kind
    if kind == "reproduced" and status.get("torch"):
        text += f" ({t('on_torch', lang, v=status['torch'])})"
    return text
