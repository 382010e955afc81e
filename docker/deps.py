"""Print the project's dependencies from pyproject.toml, one a line, for `pip install -r`:
the images install them before the code is copied, so a code change does not reinstall
them. torch is left out (each image installs it from its own index first).

    python deps.py [EXTRA ...] > requirements.txt
"""

import sys
import tomllib

with open("pyproject.toml", "rb") as f:
    project = tomllib.load(f)["project"]
wanted = list(project["dependencies"])
for extra in sys.argv[1:]:
    if extra not in project.get("optional-dependencies", {}):
        sys.exit(f"deps.py: pyproject.toml has no extra {extra!r}")
    wanted += project["optional-dependencies"][extra]
for requirement in dict.fromkeys(wanted):
    if not requirement.replace(" ", "").lower().startswith(("torch=", "torch>", "torch<", "torch~", "torch!")):
        print(requirement)
