// Stratus's Lambda runtime client for Node.js, written for Stratus.
//
// Started as `node bootstrap.mjs` with the environment Lambda sets: loads the handler named
// by _HANDLER from LAMBDA_TASK_ROOT (CommonJS .js/.cjs or ES modules .mjs, or .js in a
// "type": "module" package), then loops on the Runtime API at AWS_LAMBDA_RUNTIME_API: GET the
// next event, call the handler (async, or with a callback), POST the result or the error
// document in the shapes AWS's Node.js runtime uses.

import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import util from "node:util";
import { createRequire } from "node:module";
import { pathToFileURL, fileURLToPath } from "node:url";

const API_PREFIX = "/2018-06-01/runtime";
const [apiHost, apiPort] = splitAddress(process.env.AWS_LAMBDA_RUNTIME_API || "127.0.0.1:9001");
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const clientPath = fileURLToPath(import.meta.url);
let currentRequestId = null;

// Lambda's globals for response streaming: a handler wrapped in streamifyResponse gets a
// writable stream as its second argument, and its writes reach the invoker as they happen.
const STREAMING = Symbol.for("aws.lambda.runtime.handler.streaming");
globalThis.awslambda = {
  streamifyResponse(handler) {
    handler[STREAMING] = "response";
    return handler;
  },
  HttpResponseStream: {
    // A function URL's response: the JSON prelude (status, headers), eight NUL bytes, the body.
    from(stream, prelude) {
      stream.setContentType("application/vnd.awslambda.http-integration-response");
      stream.write(JSON.stringify(prelude));
      stream.write(new Uint8Array(8));
      return stream;
    },
  },
};

function splitAddress(address) {
  const colon = address.lastIndexOf(":");
  return [address.slice(0, colon), Number(address.slice(colon + 1))];
}

function request(method, urlPath, body, headers) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: apiHost, port: apiPort, method, path: API_PREFIX + urlPath, agent, headers: headers || {} },
      (res) => {
        const chunks = [];
        res.on("data", (chunk) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

function post(urlPath, payload, errorType) {
  const body = Buffer.from(payload);
  const headers = { "Content-Type": "application/json", "Content-Length": body.length };
  if (errorType) headers["Lambda-Runtime-Function-Error-Type"] = errorType;
  return request("POST", urlPath, body, headers);
}

// console.* as in Lambda: a timestamp, the request id and the level before each record.
function patchConsole() {
  const write = (level) => (...args) => {
    const text = util.format(...args).replace(/\n/g, "\r");
    process.stdout.write(`${new Date().toISOString()}\t${currentRequestId || "undefined"}\t${level}\t${text}\n`);
  };
  console.log = write("INFO");
  console.info = write("INFO");
  console.warn = write("WARN");
  console.error = write("ERROR");
  console.debug = write("DEBUG");
  console.trace = write("TRACE");
}

class UserError extends Error {
  constructor(errorType, message) {
    super(message);
    this.name = errorType;
  }
}

function errorDocument(error) {
  if (error instanceof Error) {
    const errorType = error.name && error.name !== "Error" ? error.name : error.constructor?.name || "Error";
    const trace = typeof error.stack === "string" ? error.stack.split("\n") : [];
    return { errorType, errorMessage: error.message, trace };
  }
  return { errorType: typeof error, errorMessage: String(error), trace: [] };
}

async function findModule(taskRoot, modulePath) {
  const base = path.resolve(taskRoot, modulePath);
  for (const extension of [".js", ".mjs", ".cjs"]) {
    const file = base + extension;
    if (fs.existsSync(file)) return file;
  }
  return null;
}

async function loadModule(taskRoot, modulePath) {
  const file = await findModule(taskRoot, modulePath);
  const require = createRequire(path.join(taskRoot, "index.js"));
  if (file === null) {
    // As Lambda: a module from node_modules (NODE_PATH) is the last resort.
    try {
      return require(modulePath);
    } catch (error) {
      if (error && error.code === "MODULE_NOT_FOUND") {
        throw new UserError(
          "Runtime.ImportModuleError",
          `Error: Cannot find module '${modulePath}'\nRequire stack:\n- ${clientPath}`,
        );
      }
      throw error;
    }
  }
  if (file.endsWith(".mjs")) return import(pathToFileURL(file).href);
  if (file.endsWith(".cjs")) return require(file);
  try {
    return require(file);
  } catch (error) {
    if (error && error.code === "ERR_REQUIRE_ESM") return import(pathToFileURL(file).href);
    throw error;
  }
}

async function loadHandler(taskRoot, handlerString) {
  const slash = handlerString.lastIndexOf("/");
  const dot = handlerString.indexOf(".", slash + 1);
  if (dot < 0) {
    throw new UserError("Runtime.MalformedHandlerName", `Bad handler ${handlerString}`);
  }
  const modulePath = handlerString.slice(0, dot);
  const handlerPath = handlerString.slice(dot + 1);
  let module;
  try {
    module = await loadModule(taskRoot, modulePath);
  } catch (error) {
    if (error instanceof UserError) throw error;
    if (error instanceof SyntaxError) {
      throw new UserError("Runtime.UserCodeSyntaxError", `SyntaxError: ${error.message}`);
    }
    if (error && (error.code === "MODULE_NOT_FOUND" || error.code === "ERR_MODULE_NOT_FOUND")) {
      throw new UserError("Runtime.ImportModuleError", `Error: ${error.message}`);
    }
    throw error;
  }
  let handler = handlerPath.split(".").reduce((value, key) => (value == null ? undefined : value[key]), module);
  if (handler === undefined && module && module.default) {
    handler = handlerPath.split(".").reduce((value, key) => (value == null ? undefined : value[key]), module.default);
  }
  if (typeof handler !== "function") {
    throw new UserError("Runtime.HandlerNotFound", `${handlerString} is undefined or not exported`);
  }
  return handler;
}

function parseHeader(value) {
  if (!value) return undefined;
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}

function makeContext(headers) {
  const deadline = Number(headers["lambda-runtime-deadline-ms"] || 0);
  const env = process.env;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: env.AWS_LAMBDA_FUNCTION_NAME,
    functionVersion: env.AWS_LAMBDA_FUNCTION_VERSION,
    invokedFunctionArn: headers["lambda-runtime-invoked-function-arn"],
    memoryLimitInMB: env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    awsRequestId: headers["lambda-runtime-aws-request-id"],
    logGroupName: env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: env.AWS_LAMBDA_LOG_STREAM_NAME,
    identity: parseHeader(headers["lambda-runtime-cognito-identity"]),
    clientContext: parseHeader(headers["lambda-runtime-client-context"]),
    getRemainingTimeInMillis() {
      return Math.max(deadline - Date.now(), 0);
    },
  };
}

// Runs one invocation; resolves to { error } or { result } once the handler is done (for a
// callback, once the event loop is empty unless callbackWaitsForEmptyEventLoop is false).
function runHandler(handler, event, context) {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome) => {
      if (settled) return;
      settled = true;
      if (outcome.viaCallback && context.callbackWaitsForEmptyEventLoop) {
        process.once("beforeExit", () => resolve(outcome));
      } else {
        resolve(outcome);
      }
    };
    const callback = (error, result) =>
      finish(error != null ? { error, viaCallback: true } : { result, viaCallback: true });
    context.succeed = (result) => finish({ result });
    context.fail = (error) => finish({ error: error == null ? new Error("handled") : error });
    context.done = (error, result) => (error != null ? finish({ error }) : finish({ result }));
    let returned;
    try {
      returned = handler(event, context, callback);
    } catch (error) {
      finish({ error });
      return;
    }
    if (returned && typeof returned.then === "function") {
      returned.then(
        (result) => finish({ result }),
        (error) => finish({ error: error == null ? new Error("null") : error }),
      );
    } else if (handler.length < 3) {
      finish({ result: returned });
    }
  });
}

// Streams one invocation's response: the handler writes to the POST itself (chunked); a
// failure ends it with the error in trailers.
function runStreaming(handler, event, context, requestId) {
  return new Promise((resolve) => {
    const stream = http.request(
      {
        host: apiHost,
        port: apiPort,
        method: "POST",
        path: `${API_PREFIX}/invocation/${requestId}/response`,
        agent,
        headers: {
          "Lambda-Runtime-Function-Response-Mode": "streaming",
          "Transfer-Encoding": "chunked",
          "Content-Type": "application/octet-stream",
          Trailer: "Lambda-Runtime-Function-Error-Type, Lambda-Runtime-Function-Error-Body",
        },
      },
      (res) => {
        res.resume();
        res.on("end", resolve);
        res.on("error", resolve);
      },
    );
    stream.on("error", resolve);
    stream.setContentType = (type) => stream.setHeader("Content-Type", type);
    let failed = false;
    const fail = (error) => {
      if (failed || stream.writableEnded) return;
      failed = true;
      const document = errorDocument(error);
      console.error(`${document.errorType}: ${document.errorMessage}`);
      stream.addTrailers({
        "Lambda-Runtime-Function-Error-Type": document.errorType,
        "Lambda-Runtime-Function-Error-Body": Buffer.from(JSON.stringify(document)).toString("base64"),
      });
      stream.end();
    };
    let returned;
    try {
      returned = handler(event, stream, context);
    } catch (error) {
      fail(error);
      return;
    }
    Promise.resolve(returned).then(() => {
      if (!stream.writableEnded) stream.end();
    }, fail);
  });
}

async function postError(urlPath, error) {
  const document = errorDocument(error);
  console.error(`${document.errorType}: ${document.errorMessage}`, ...(document.trace.length ? ["\n" + document.trace.slice(1).join("\n")] : []));
  await post(urlPath, JSON.stringify(document), document.errorType);
}

async function main() {
  patchConsole();
  const taskRoot = process.env.LAMBDA_TASK_ROOT || process.cwd();
  let handler;
  try {
    handler = await loadHandler(taskRoot, process.env._HANDLER || "");
  } catch (error) {
    await postError("/init/error", error);
    process.exit(1);
  }
  process.on("uncaughtException", async (error) => {
    if (currentRequestId) await postError(`/invocation/${currentRequestId}/error`, error);
    process.exit(129);
  });
  for (;;) {
    const next = await request("GET", "/invocation/next");
    const requestId = next.headers["lambda-runtime-aws-request-id"] || "";
    currentRequestId = requestId;
    const traceId = next.headers["lambda-runtime-trace-id"];
    if (traceId) process.env._X_AMZN_TRACE_ID = traceId;
    else delete process.env._X_AMZN_TRACE_ID;
    let event;
    try {
      event = next.body.length ? JSON.parse(next.body.toString("utf8")) : null;
    } catch (error) {
      await postError(`/invocation/${requestId}/error`, new UserError("Runtime.UnmarshalError", error.message));
      continue;
    }
    if (handler[STREAMING] === "response") {
      await runStreaming(handler, event, makeContext(next.headers), requestId);
      continue;
    }
    const outcome = await runHandler(handler, event, makeContext(next.headers));
    if ("error" in outcome) {
      await postError(`/invocation/${requestId}/error`, outcome.error);
      continue;
    }
    let payload;
    try {
      payload = JSON.stringify(outcome.result === undefined ? null : outcome.result);
    } catch (error) {
      await postError(`/invocation/${requestId}/error`, new UserError("Runtime.MarshalError", `Unable to stringify response body: ${error.message}`));
      continue;
    }
    await post(`/invocation/${requestId}/response`, payload === undefined ? "null" : payload);
  }
}

main();
