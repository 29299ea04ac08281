"""Stratus's Lambda runtime client for Python, written for Stratus.

Started as `python3 bootstrap.py [OPT_DIR]` with the environment Lambda sets: loads the
handler named by _HANDLER from LAMBDA_TASK_ROOT, then loops on the Runtime API at
AWS_LAMBDA_RUNTIME_API: GET the next event, call handler(event, context), POST the result
or the error document, in the shapes AWS's Python runtime uses.
"""

import http.client
import importlib
import json
import logging
import os
import sys
import time
import traceback

API_PREFIX = "/2018-06-01/runtime"


class RuntimeApi:
    """One keep-alive connection to the Runtime API."""

    def __init__(self, address):
        host, _, port = address.rpartition(":")
        self.connection = http.client.HTTPConnection(host, int(port), timeout=None)

    def request(self, method, path, body=None, headers=None):
        for attempt in (0, 1):
            try:
                self.connection.request(method, API_PREFIX + path, body=body, headers=headers or {})
                response = self.connection.getresponse()
                return response, response.read()
            except (http.client.HTTPException, ConnectionError):
                self.connection.close()
                if attempt:
                    raise
        raise RuntimeError("unreachable")

    def next(self):
        response, body = self.request("GET", "/invocation/next")
        return response.headers, body

    def post(self, path, body, error_type=None):
        headers = {"Content-Type": "application/json"}
        if error_type:
            headers["Lambda-Runtime-Function-Error-Type"] = error_type
        return self.request("POST", path, body=body, headers=headers)


class CognitoIdentity:
    __slots__ = ["cognito_identity_id", "cognito_identity_pool_id"]

    def __init__(self, document):
        self.cognito_identity_id = document.get("cognitoIdentityId")
        self.cognito_identity_pool_id = document.get("cognitoIdentityPoolId")


class Client:
    __slots__ = ["installation_id", "app_title", "app_version_name", "app_version_code", "app_package_name"]

    def __init__(self, document):
        self.installation_id = document.get("installation_id")
        self.app_title = document.get("app_title")
        self.app_version_name = document.get("app_version_name")
        self.app_version_code = document.get("app_version_code")
        self.app_package_name = document.get("app_package_name")


class ClientContext:
    __slots__ = ["custom", "env", "client"]

    def __init__(self, document):
        self.custom = document.get("custom")
        self.env = document.get("env")
        client = document.get("client")
        self.client = Client(client) if isinstance(client, dict) else None


class LambdaContext:
    """The handler's `context`, with the attributes AWS's Python runtime gives it."""

    def __init__(self, request_id, deadline_ms, invoked_function_arn, client_context, cognito_identity):
        self.aws_request_id = request_id
        self.invoked_function_arn = invoked_function_arn
        self.function_name = os.environ.get("AWS_LAMBDA_FUNCTION_NAME")
        self.function_version = os.environ.get("AWS_LAMBDA_FUNCTION_VERSION")
        self.memory_limit_in_mb = os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE")
        self.log_group_name = os.environ.get("AWS_LAMBDA_LOG_GROUP_NAME")
        self.log_stream_name = os.environ.get("AWS_LAMBDA_LOG_STREAM_NAME")
        self.client_context = ClientContext(client_context) if isinstance(client_context, dict) else None
        self.identity = CognitoIdentity(cognito_identity if isinstance(cognito_identity, dict) else {})
        self._deadline_ms = deadline_ms

    def get_remaining_time_in_millis(self):
        return max(self._deadline_ms - int(time.time() * 1000), 0)

    def __repr__(self):
        return (
            "LambdaContext([aws_request_id={},log_group_name={},log_stream_name={},function_name={},"
            "memory_limit_in_mb={},function_version={},invoked_function_arn={},client_context={},identity={}])"
        ).format(
            self.aws_request_id,
            self.log_group_name,
            self.log_stream_name,
            self.function_name,
            self.memory_limit_in_mb,
            self.function_version,
            self.invoked_function_arn,
            self.client_context,
            self.identity,
        )


class RequestIdFilter(logging.Filter):
    """Stamps every record with the current invocation's request id."""

    request_id = None

    def filter(self, record):
        record.aws_request_id = RequestIdFilter.request_id
        return True


class LambdaLogHandler(logging.StreamHandler):
    """Writes a record as one line of Lambda's text log format."""

    def format(self, record):
        return super().format(record).replace("\n", "\r")


def install_logging():
    # As in Lambda: the root logger writes `[LEVEL]\ttime\trequest id\tmessage` (its level
    # stays WARNING until the function lowers it).
    handler = LambdaLogHandler(sys.stdout)
    formatter = logging.Formatter(
        "[%(levelname)s]\t%(asctime)s.%(msecs)03dZ\t%(aws_request_id)s\t%(message)s", "%Y-%m-%dT%H:%M:%S"
    )
    formatter.converter = time.gmtime
    handler.setFormatter(formatter)
    handler.addFilter(RequestIdFilter())
    logging.getLogger().addHandler(handler)


class InitError(Exception):
    def __init__(self, error_type, message, stack=None):
        super().__init__(message)
        self.error_type = error_type
        self.message = message
        self.stack = stack or []


def error_document(error_type, message, stack, request_id=""):
    return json.dumps(
        {"errorMessage": message, "errorType": error_type, "requestId": request_id, "stackTrace": stack}
    ).encode()


def log_error(error_type, message, stack):
    lines = "".join(stack)
    text = "[ERROR] {}: {}".format(error_type, message)
    if lines:
        text += "\nTraceback (most recent call last):\n" + lines
    # CloudWatch keeps a multi-line record as one event; a pipe cannot, so \r joins the lines.
    sys.stdout.write(text.replace("\n", "\r").rstrip("\r") + "\n")
    sys.stdout.flush()


def load_handler(handler):
    try:
        module_path, function_name = handler.rsplit(".", 1)
    except ValueError as error:
        raise InitError("Runtime.MalformedHandlerName", "Bad handler '{}': {}".format(handler, error))
    module_name = module_path.replace("/", ".")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise InitError(
            "Runtime.ImportModuleError", "Unable to import module '{}': {}".format(module_path, error)
        )
    except SyntaxError as error:
        stack = ['  File "{}" Line {}\n    {}\n'.format(error.filename, error.lineno, (error.text or "").strip())]
        raise InitError(
            "Runtime.UserCodeSyntaxError", "Syntax error in module '{}': {}".format(module_path, error), stack
        )
    except Exception as error:
        raise InitError(type(error).__name__, str(error), stack_of(error))
    function = getattr(module, function_name, None)
    if function is None:
        raise InitError(
            "Runtime.HandlerNotFound", "Handler '{}' missing on module '{}'".format(function_name, module_path)
        )
    return function


def stack_of(error):
    frames = traceback.extract_tb(error.__traceback__)
    # Drop this client's own frames: the user's code starts after them.
    own = os.path.abspath(__file__)
    frames = [frame for frame in frames if os.path.abspath(frame.filename) != own]
    return traceback.format_list(frames)


def decode_header(headers, name):
    value = headers.get(name)
    if not value:
        return None
    try:
        return json.loads(value)
    except ValueError:
        return None


def main():
    task_root = os.environ.get("LAMBDA_TASK_ROOT", os.getcwd())
    opt = sys.argv[1] if len(sys.argv) > 1 else "/opt"
    version = "python{}.{}".format(sys.version_info[0], sys.version_info[1])
    # AWS's order: the task root, then the layers' directories, then the interpreter's own.
    site_packages = "{}/python/lib/{}/site-packages".format(opt, version)
    sys.path[0:0] = [task_root, site_packages, opt + "/python"]
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(line_buffering=True)
        except AttributeError:
            pass

    install_logging()
    api = RuntimeApi(os.environ["AWS_LAMBDA_RUNTIME_API"])
    try:
        handler = load_handler(os.environ.get("_HANDLER", ""))
    except InitError as error:
        log_error(error.error_type, error.message, error.stack)
        api.post("/init/error", error_document(error.error_type, error.message, error.stack), error.error_type)
        sys.exit(1)

    while True:
        headers, body = api.next()
        request_id = headers.get("Lambda-Runtime-Aws-Request-Id", "")
        RequestIdFilter.request_id = request_id
        trace_id = headers.get("Lambda-Runtime-Trace-Id")
        if trace_id:
            os.environ["_X_AMZN_TRACE_ID"] = trace_id
        else:
            os.environ.pop("_X_AMZN_TRACE_ID", None)
        try:
            deadline_ms = int(headers.get("Lambda-Runtime-Deadline-Ms", "0"))
        except ValueError:
            deadline_ms = 0
        context = LambdaContext(
            request_id,
            deadline_ms,
            headers.get("Lambda-Runtime-Invoked-Function-Arn"),
            decode_header(headers, "Lambda-Runtime-Client-Context"),
            decode_header(headers, "Lambda-Runtime-Cognito-Identity"),
        )
        try:
            event = json.loads(body) if body else None
        except ValueError as error:
            post_error(api, request_id, "Runtime.UnmarshalError", "Unable to unmarshal input: {}".format(error), [])
            continue
        try:
            result = handler(event, context)
        except Exception as error:
            post_error(api, request_id, type(error).__name__, str(error), stack_of(error))
            continue
        try:
            payload = json.dumps(result).encode()
        except (TypeError, ValueError) as error:
            post_error(api, request_id, "Runtime.MarshalError", "Unable to marshal response: {}".format(error), [])
            continue
        sys.stdout.flush()
        sys.stderr.flush()
        api.post("/invocation/{}/response".format(request_id), payload)


def post_error(api, request_id, error_type, message, stack):
    log_error(error_type, message, stack)
    sys.stderr.flush()
    api.post(
        "/invocation/{}/error".format(request_id), error_document(error_type, message, stack, request_id), error_type
    )


if __name__ == "__main__":
    main()
