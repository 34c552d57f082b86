"""The SimuHome suite: episode files (the 12 kinds) and the homes they start from."""
