"""Evidence one person cannot move (issue 27): the snippet's shape (its hash without
comments and whitespace) and why a run is held out of the public rates.

Revision ID: 0007_evidence_quorum
Revises: 0006_owed_work
Create Date: 2026-12-04
"""

import sqlalchemy as sa
from alembic import op

revision = "0007_evidence_quorum"
down_revision = "0006_owed_work"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("verifications") as batch:
        batch.add_column(sa.Column("snippet_shape", sa.String(64)))
        batch.add_column(sa.Column("held_reason", sa.String(32)))
    with op.batch_alter_table("verification_outcomes") as batch:
        batch.add_column(sa.Column("held_reason", sa.String(32)))


def downgrade() -> None:
    with op.batch_alter_table("verification_outcomes") as batch:
        batch.drop_column("held_reason")
    with op.batch_alter_table("verifications") as batch:
        batch.drop_column("held_reason")
        batch.drop_column("snippet_shape")
