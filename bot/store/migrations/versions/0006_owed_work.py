"""Durable accepted work (issue 29): the Slack requests the bot acknowledged and still owes
work for, with a lease per process; the owner of a dedupe key.

Revision ID: 0006_owed_work
Revises: 0005_pending_examples
Create Date: 2026-12-04
"""

import sqlalchemy as sa
from alembic import op

revision = "0006_owed_work"
down_revision = "0005_pending_examples"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("slack_dedupe_keys") as batch:
        batch.add_column(sa.Column("owner", sa.String(64)))
    op.create_table(
        "owed_work",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("content_type", sa.String(64), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("state", sa.String(8), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("lease_owner", sa.String(64)),
        sa.Column("lease_until", sa.DateTime(timezone=True)),
        sa.Column("not_before", sa.DateTime(timezone=True)),
        sa.Column("last_error", sa.String(200)),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True)),
    )
    op.create_index("ix_owed_work_state_lease", "owed_work", ["state", "lease_until"])


def downgrade() -> None:
    op.drop_index("ix_owed_work_state_lease", "owed_work")
    op.drop_table("owed_work")
    with op.batch_alter_table("slack_dedupe_keys") as batch:
        batch.drop_column("owner")
