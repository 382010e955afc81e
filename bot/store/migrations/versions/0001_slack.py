"""Slack tables: dedupe keys, answers, votes, verification locks, meta.

Revision ID: 0001_slack
Revises:
Create Date: 2025-01-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0001_slack"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "meta",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.String(256), nullable=False),
    )
    op.create_table(
        "slack_dedupe_keys",
        sa.Column("key", sa.String(255), primary_key=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_slack_dedupe_keys_created_at", "slack_dedupe_keys", ["created_at"])
    op.create_table(
        "answers",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("channel", sa.String(32)),
        sa.Column("ts", sa.String(32)),
        sa.Column("thread_ts", sa.String(32)),
        sa.Column("question_ts", sa.String(32)),
        sa.Column("entry_id", sa.String(128)),
        sa.Column("confidence", sa.Float),
        sa.Column("language", sa.String(8), nullable=False),
        sa.Column("surface", sa.String(16), nullable=False),
        sa.Column("error_hash", sa.String(64), nullable=False),
        sa.Column("answer_json", sa.Text),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_answers_entry_id", "answers", ["entry_id"])
    op.create_index("ix_answers_error_hash", "answers", ["error_hash"])
    op.create_index("ix_answers_channel_question", "answers", ["channel", "question_ts"])
    op.create_table(
        "votes",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("answer_id", sa.Integer, sa.ForeignKey("answers.id", ondelete="CASCADE"), nullable=False),
        sa.Column("user_hash", sa.String(64), nullable=False),
        sa.Column("vote", sa.SmallInteger, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("answer_id", "user_hash", name="uq_votes_answer_user"),
    )
    op.create_index("ix_votes_answer_id", "votes", ["answer_id"])
    op.create_table(
        "verification_locks",
        sa.Column("user_hash", sa.String(64), primary_key=True),
        sa.Column("answer_id", sa.Integer),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("verification_locks")
    op.drop_index("ix_votes_answer_id", "votes")
    op.drop_table("votes")
    op.drop_index("ix_answers_channel_question", "answers")
    op.drop_index("ix_answers_error_hash", "answers")
    op.drop_index("ix_answers_entry_id", "answers")
    op.drop_table("answers")
    op.drop_index("ix_slack_dedupe_keys_created_at", "slack_dedupe_keys")
    op.drop_table("slack_dedupe_keys")
    op.drop_table("meta")
