"""Evidence tables: verifications, their per-fix outcomes, coverage gaps.

Revision ID: 0002_evidence
Revises: 0001_slack
Create Date: 2025-01-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0002_evidence"
down_revision = "0001_slack"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "verifications",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("report_key", sa.String(64), unique=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("surface", sa.String(16), nullable=False),
        sa.Column("answer_id", sa.Integer, sa.ForeignKey("answers.id", ondelete="SET NULL")),
        sa.Column("entry_id", sa.String(128)),
        sa.Column("reproduced", sa.Boolean, nullable=False),
        sa.Column("exit_reason", sa.String(16)),
        sa.Column("error_type", sa.String(128)),
        sa.Column("torch", sa.String(64)),
        sa.Column("cuda", sa.String(32)),
        sa.Column("gpu", sa.String(128)),
        sa.Column("python", sa.String(32)),
        sa.Column("seconds", sa.Float),
        sa.Column("peak_memory_bytes", sa.BigInteger),
        sa.Column("peak_gpu_memory_bytes", sa.BigInteger),
        sa.Column("snippet_sha256", sa.String(64), nullable=False),
        sa.Column("consent", sa.Boolean, nullable=False),
        sa.Column("snippet", sa.Text),
    )
    op.create_index("ix_verifications_entry_id", "verifications", ["entry_id"])
    op.create_index("ix_verifications_snippet_sha256", "verifications", ["snippet_sha256"])
    op.create_table(
        "verification_outcomes",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("verification_id", sa.Integer, sa.ForeignKey("verifications.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("entry_id", sa.String(128), nullable=False),
        sa.Column("item_id", sa.String(128), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("patch", sa.String(64)),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("new_entry_id", sa.String(128)),
        sa.Column("seconds", sa.Float),
        sa.Column("peak_memory_bytes", sa.BigInteger),
        sa.Column("peak_gpu_memory_bytes", sa.BigInteger),
    )
    op.create_index("ix_verification_outcomes_verification_id", "verification_outcomes", ["verification_id"])
    op.create_index("ix_verification_outcomes_item", "verification_outcomes", ["entry_id", "item_id"])
    op.create_table(
        "coverage_gaps",
        sa.Column("signature", sa.String(64), primary_key=True),
        sa.Column("excerpt", sa.String(240), nullable=False),
        sa.Column("language", sa.String(8)),
        sa.Column("count", sa.Integer, nullable=False),
        sa.Column("nearest_entry_id", sa.String(128)),
        sa.Column("nearest_confidence", sa.Float),
        sa.Column("first_seen", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_coverage_gaps_last_seen", "coverage_gaps", ["last_seen"])


def downgrade() -> None:
    op.drop_index("ix_coverage_gaps_last_seen", "coverage_gaps")
    op.drop_table("coverage_gaps")
    op.drop_index("ix_verification_outcomes_item", "verification_outcomes")
    op.drop_index("ix_verification_outcomes_verification_id", "verification_outcomes")
    op.drop_table("verification_outcomes")
    op.drop_index("ix_verifications_snippet_sha256", "verifications")
    op.drop_index("ix_verifications_entry_id", "verifications")
    op.drop_table("verifications")
