"""Evidence integrity: who asked (a salted hash) and whether a run may count.

Revision ID: 0003_evidence_integrity
Revises: 0002_evidence
Create Date: 2025-01-10
"""

import sqlalchemy as sa
from alembic import op

revision = "0003_evidence_integrity"
down_revision = "0002_evidence"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("verifications") as batch:
        batch.add_column(sa.Column("asker", sa.String(64)))
        batch.add_column(sa.Column("counted", sa.Boolean, nullable=False, server_default=sa.true()))
    op.create_index("ix_verifications_asker", "verifications", ["asker"])
    with op.batch_alter_table("verification_outcomes") as batch:
        batch.add_column(sa.Column("counted", sa.Boolean, nullable=False, server_default=sa.true()))


def downgrade() -> None:
    with op.batch_alter_table("verification_outcomes") as batch:
        batch.drop_column("counted")
    op.drop_index("ix_verifications_asker", table_name="verifications")
    with op.batch_alter_table("verifications") as batch:
        batch.drop_column("counted")
        batch.drop_column("asker")
