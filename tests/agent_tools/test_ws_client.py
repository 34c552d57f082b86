"""The websocket client's copy of python-matter-server's error names matches the installed server's."""

from __future__ import annotations

import matter_server.common.errors as server_errors

from agent_tools.matter_backend.ws_client import SERVER_ERRORS, MatterServerError


def test_error_names_are_python_matter_servers() -> None:
    theirs = {
        cls.error_code: name
        for name, cls in vars(server_errors).items()
        if isinstance(cls, type) and issubclass(cls, server_errors.MatterError) and cls is not server_errors.MatterError
    }
    assert theirs == SERVER_ERRORS
    refused = MatterServerError("get_node", "Node 9 does not exist", server_errors.NodeNotExists.error_code)
    assert refused.error_name == "NodeNotExists" and str(refused) == "get_node: Node 9 does not exist (error_code 5)"
