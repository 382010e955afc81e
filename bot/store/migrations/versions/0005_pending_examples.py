"""The learning loop (issue 24): examples askers tied to an entry, pending review.

Revision ID: 0005_pending_examples
Revises: 0004_slack_feedback
Create Date: 2026-12-04
"""

import sqlalchemy as sa
from alembic import op

revision = "0005_pending_examples"
down_revision = "0004_slack_feedback"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "pending_examples",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("entry_id", sa.String(128), nullable=False),
        sa.Column("text", sa.String(1000), nullable=False),
        sa.Column("language", sa.String(8)),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("count", sa.Integer, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("first_seen", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_pending_examples_entry_id", "pending_examples", ["entry_id"])
    op.create_index("ix_pending_examples_last_seen", "pending_examples", ["last_seen"])


def downgrade() -> None:
    op.drop_table("pending_examples")
