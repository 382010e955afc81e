"""Slack (issue 14): who asked each answer (a salted hash), why a 👎, per-channel settings.

Revision ID: 0004_slack_feedback
Revises: 0003_evidence_integrity
Create Date: 2025-01-20
"""

import sqlalchemy as sa
from alembic import op

revision = "0004_slack_feedback"
down_revision = "0003_evidence_integrity"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("answers") as batch:
        batch.add_column(sa.Column("asker", sa.String(64)))
    op.create_index("ix_answers_asker", "answers", ["asker"])
    op.create_index("ix_answers_channel_thread", "answers", ["channel", "thread_ts"])
    op.create_table(
        "vote_reasons",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("answer_id", sa.Integer, sa.ForeignKey("answers.id", ondelete="CASCADE"), nullable=False),
        sa.Column("user_hash", sa.String(64), nullable=False),
        sa.Column("entry_id", sa.String(128)),
        sa.Column("workaround_id", sa.String(128)),
        sa.Column("reason", sa.String(16), nullable=False),
        sa.Column("comment", sa.String(500)),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("answer_id", "user_hash", name="uq_vote_reasons_answer_user"),
    )
    op.create_index("ix_vote_reasons_entry_id", "vote_reasons", ["entry_id"])
    op.create_table(
        "channel_settings",
        sa.Column("team", sa.String(32), primary_key=True),
        sa.Column("channel", sa.String(32), primary_key=True),
        sa.Column("auto_answer", sa.Boolean),
        sa.Column("language", sa.String(8)),
        sa.Column("verify_allowed", sa.Boolean),
        sa.Column("updated_by", sa.String(64)),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("channel_settings")
    op.drop_index("ix_vote_reasons_entry_id", table_name="vote_reasons")
    op.drop_table("vote_reasons")
    op.drop_index("ix_answers_channel_thread", table_name="answers")
    op.drop_index("ix_answers_asker", table_name="answers")
    with op.batch_alter_table("answers") as batch:
        batch.drop_column("asker")
