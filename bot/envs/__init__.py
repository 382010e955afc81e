"""Torch environments a worker holds, one per release (`troubleshoot envs`), and the
version matrix that runs a verification on several of them (bot/verify/matrix.py)."""

from .store import (Environment, EnvError, EnvStore, HostEnvironment, UnknownVersion, env_name, host_environment,
                    same_release)

__all__ = ["Environment", "EnvError", "EnvStore", "HostEnvironment", "UnknownVersion", "env_name", "host_environment",
           "same_release"]
