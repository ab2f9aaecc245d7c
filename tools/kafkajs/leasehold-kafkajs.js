#!/usr/bin/env node
// A kafkajs producer, consumer or admin for Leasehold's end-to-end tests. It speaks one JSON object per
// line on stdout, so the Java harness (io.leasehold.testing.KafkajsProducer / KafkajsConsumer)
// sees every record's outcome; kafkajs's own log goes to stderr.
//
//   produce --brokers H:P --topic T [--partition N] [--client-id ID] [--acks -1] [--in-flight 5] [--retries 10]
//       reads one record value per stdin line; prints {"event":"acked","line":i,"partition":p,"offset":"o"}
//       or {"event":"failed","line":i,"error":"..."} per line, then {"event":"done",...}.
//   consume --brokers H:P --topic T --group G [--client-id ID] [--max-wait-ms 500] [--session-timeout-ms 10000]
//       prints {"event":"joined",...} on each group join and
//       {"event":"record","partition":p,"offset":"o","value":"...","receivedAt":ms} per record until
//       stdin closes or SIGTERM, then leaves the group and prints {"event":"done"}.
//   create-topics --brokers H:P --topics T1,T2 [--partitions 1]
//   delete-topics --brokers H:P --topics T1,T2
//       one admin call for all the topics; prints {"event":"done"} when kafkajs reports success, else
//       {"event":"error","error":"...","topics":[{"topic":"T2","error":"..."}]} (the per-topic errors
//       kafkajs names, when it names any). The exit code is 0 only on success.
//   fetch-offsets --brokers H:P --group G --topics T1,T2
//       the group's committed offsets of those topics (admin.fetchOffsets): prints
//       {"event":"offsets","topic":"T1","partitions":[{"partition":0,"offset":"5"}]} per topic, then
//       {"event":"done"}; or {"event":"error",...} as above.
// Every mode also takes [--sasl-mechanism plain|scram-sha-256|scram-sha-512 --sasl-username U] (the password
// from the environment variable LEASEHOLD_KAFKAJS_SASL_PASSWORD, so it is not on the command line), or
// [--sasl-mechanism oauthbearer] (the bearer token, a JWT, from LEASEHOLD_KAFKAJS_OAUTH_TOKEN) and
// [--ssl-ca FILE] (TLS to the brokers, trusting that PEM CA) with [--ssl-cert FILE --ssl-key FILE] (a client
// certificate and its key, PEM, for a listener that requires one).
// Errors kafkajs gives up on are printed as {"event":"error","error":"..."}; the exit code is 0 only when
// the run ended as asked (every produce line acked, or the consumer stopped on request without a crash).
'use strict';

const readline = require('readline');
const { Kafka, logLevel } = require('kafkajs');

function parseArgs(argv) {
  const [mode, ...rest] = argv;
  const options = {};
  for (let i = 0; i < rest.length; i += 2) {
    if (!rest[i].startsWith('--') || i + 1 >= rest.length) {
      fail(`bad argument '${rest[i]}': options are --name value pairs`);
    }
    options[rest[i].slice(2)] = rest[i + 1];
  }
  return { mode, options };
}

function fail(message) {
  process.stderr.write(`leasehold-kafkajs: ${message}\n`);
  process.exit(2);
}

function emit(event) {
  process.stdout.write(JSON.stringify(event) + '\n');
}

function required(options, name) {
  if (options[name] === undefined) {
    fail(`--${name} is required`);
  }
  return options[name];
}

function number(options, name, fallback) {
  const text = options[name];
  if (text === undefined) {
    return fallback;
  }
  const value = Number(text);
  if (!Number.isInteger(value)) {
    fail(`--${name} must be an integer, got '${text}'`);
  }
  return value;
}

function describe(error) {
  return `${error.name || 'Error'}: ${error.message}${error.type ? ` (${error.type})` : ''}`;
}

// kafkajs logs to stdout by default; stdout is this tool's protocol, so its log goes to stderr.
function stderrLogCreator() {
  return ({ level, log }) => {
    const { message, ...extra } = log;
    process.stderr.write(`${new Date().toISOString()} ${logLevel[level] || level} ${message} ${JSON.stringify(extra)}\n`);
  };
}

function sasl(options) {
  if (options['sasl-mechanism'] === undefined) {
    return undefined;
  }
  if (options['sasl-mechanism'] === 'oauthbearer') {
    const token = process.env.LEASEHOLD_KAFKAJS_OAUTH_TOKEN;
    if (token === undefined) {
      fail('--sasl-mechanism oauthbearer needs the token in LEASEHOLD_KAFKAJS_OAUTH_TOKEN');
    }
    return { mechanism: 'oauthbearer', oauthBearerProvider: async () => ({ value: token }) };
  }
  const password = process.env.LEASEHOLD_KAFKAJS_SASL_PASSWORD;
  if (password === undefined) {
    fail('--sasl-mechanism needs the password in LEASEHOLD_KAFKAJS_SASL_PASSWORD');
  }
  return { mechanism: options['sasl-mechanism'], username: required(options, 'sasl-username'), password };
}

function ssl(options) {
  const ca = options['ssl-ca'];
  if (ca === undefined) {
    return undefined;
  }
  const fs = require('fs');
  const settings = { ca: [fs.readFileSync(ca, 'utf8')] };
  if (options['ssl-cert'] !== undefined) {
    settings.cert = fs.readFileSync(options['ssl-cert'], 'utf8');
    settings.key = fs.readFileSync(required(options, 'ssl-key'), 'utf8');
  }
  return settings;
}

function client(options) {
  return new Kafka({
    clientId: options['client-id'] || 'leasehold-kafkajs',
    brokers: required(options, 'brokers').split(','),
    sasl: sasl(options),
    ssl: ssl(options),
    logLevel: logLevel.INFO,
    logCreator: stderrLogCreator,
    retry: { retries: number(options, 'retries', 10), initialRetryTime: 100, maxRetryTime: 2000 },
  });
}

async function produce(options) {
  const topic = required(options, 'topic');
  const partition = options.partition === undefined ? undefined : number(options, 'partition');
  const acks = number(options, 'acks', -1);
  const inFlightLimit = number(options, 'in-flight', 5);
  const producer = client(options).producer({ allowAutoTopicCreation: false, idempotent: false });
  await producer.connect();

  let acked = 0;
  let failed = 0;
  const running = new Set();
  const sendOne = async (line, value) => {
    try {
      const [meta] = await producer.send({ topic, acks, timeout: 30000, messages: [{ partition, value }] });
      acked++;
      emit({ event: 'acked', line, partition: meta.partition, offset: meta.baseOffset });
    } catch (error) {
      failed++;
      emit({ event: 'failed', line, error: describe(error) });
    }
  };

  let line = 0;
  for await (const value of readline.createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    const send = sendOne(line++, value).finally(() => running.delete(send));
    running.add(send);
    if (running.size >= inFlightLimit) {
      await Promise.race(running);
    }
  }
  await Promise.all(running);
  await producer.disconnect();
  emit({ event: 'done', acked, failed });
  return failed === 0 ? 0 : 1;
}

async function consume(options) {
  const topic = required(options, 'topic');
  const consumer = client(options).consumer({
    groupId: required(options, 'group'),
    maxWaitTimeInMs: number(options, 'max-wait-ms', 500),
    sessionTimeout: number(options, 'session-timeout-ms', 10000),
    heartbeatInterval: 1000,
  });
  let crashed = false;
  const stopped = new Promise((resolve) => {
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      emit({ event: 'error', error: describe(payload.error), restart: payload.restart });
      if (!payload.restart) {
        crashed = true;
        resolve();
      }
    });
    process.on('SIGTERM', resolve);
    process.stdin.on('end', resolve);
    process.stdin.resume();
  });
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    emit({ event: 'joined', memberId: payload.memberId, assignment: payload.memberAssignment });
  });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      emit({
        event: 'record',
        partition,
        offset: message.offset,
        value: message.value === null ? null : message.value.toString('utf8'),
        receivedAt: Date.now(),
      });
    },
  });
  await stopped;
  await consumer.disconnect();
  emit({ event: 'done' });
  return crashed ? 1 : 0;
}

function topicList(options) {
  return required(options, 'topics').split(',');
}

// kafkajs names the topic of each error only for CreateTopics (an aggregate of per-topic errors).
function adminError(error) {
  const topics = (error.errors || []).map((e) => ({ topic: e.topic, error: describe(e) }));
  return { event: 'error', error: describe(error), topics };
}

async function adminCall(options, call) {
  const admin = client(options).admin();
  await admin.connect();
  try {
    await call(admin);
    emit({ event: 'done' });
    return 0;
  } catch (error) {
    emit(adminError(error));
    return 1;
  } finally {
    await admin.disconnect();
  }
}

async function createTopics(options) {
  const numPartitions = number(options, 'partitions', 1);
  return adminCall(options, (admin) => admin.createTopics({
    topics: topicList(options).map((topic) => ({ topic, numPartitions })),
    waitForLeaders: false,
  }));
}

async function deleteTopics(options) {
  return adminCall(options, (admin) => admin.deleteTopics({ topics: topicList(options) }));
}

async function fetchOffsets(options) {
  return adminCall(options, async (admin) => {
    const answers = await admin.fetchOffsets({ groupId: required(options, 'group'), topics: topicList(options) });
    for (const { topic, partitions } of answers) {
      emit({ event: 'offsets', topic, partitions: partitions.map(({ partition, offset }) => ({ partition, offset })) });
    }
  });
}

const { mode, options } = parseArgs(process.argv.slice(2));
const modes = {
  produce, consume, 'create-topics': createTopics, 'delete-topics': deleteTopics, 'fetch-offsets': fetchOffsets,
};
if (!modes[mode]) {
  fail(`first argument must be one of ${Object.keys(modes).join(', ')}, got '${mode}'`);
}
modes[mode](options).then(
  (code) => process.exit(code),
  (error) => {
    emit({ event: 'error', error: describe(error) });
    process.exit(1);
  },
);
