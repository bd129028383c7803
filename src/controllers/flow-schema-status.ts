// The Dangling condition of FlowSchemas, as upstream's priority and fairness controller
// keeps it: True (NotFound) while the priority level a schema names does not exist, False
// (Found) once it does. `kubectl get flowschemas` shows it as MISSINGPL; the classifier
// passes dangling schemas over either way (auth/flow-schemas.ts). Written only when its
// status, reason or message change, by server-side apply of the status with upstream's
// field manager.
import { isStatusError, type KubeObject } from '../api/index.ts';
import { danglingCondition, flowControlConsumer, levelOf } from '../registry/flowcontrol-config.ts';
import type { Store } from '../registry/store.ts';
import { Controller, Informer } from './runtime/index.ts';

type Condition = { type?: string; status?: string; reason?: string; message?: string };

export class FlowSchemaStatusController {
  readonly #schemas: Store;
  readonly #schemaInformer: Informer;
  readonly #levelInformer: Informer;
  readonly #controller: Controller;

  constructor(opts: { schemas: Store; levels: Store; log: (message: string) => void }) {
    this.#schemas = opts.schemas;
    this.#schemaInformer = new Informer({ source: opts.schemas, resource: 'flowschemas', log: opts.log });
    this.#levelInformer = new Informer({ source: opts.levels, resource: 'prioritylevelconfigurations', log: opts.log });
    this.#controller = new Controller({
      name: 'flowschema-status', informers: [this.#schemaInformer, this.#levelInformer], reconcile: (name) => this.#sync(name), log: opts.log,
      shouldLog: (err) => !(isStatusError(err) && (err.code === 409 || err.code === 404)),
    });
    const enqueue = (schema: KubeObject) => this.#controller.queue.add(schema.metadata.name!);
    this.#schemaInformer.addHandlers({ add: enqueue, update: (_, schema) => enqueue(schema) });
    // A level made or deleted changes the schemas that name it.
    const levelChanged = (level: KubeObject) => {
      for (const schema of this.#schemaInformer.store.list()) if (levelOf(schema) === level.metadata.name) enqueue(schema);
    };
    this.#levelInformer.addHandlers({ add: levelChanged, delete: levelChanged });
  }

  start(): Promise<void> {
    return this.#controller.start();
  }

  /** Resolves once nothing is queued (tests). */
  idle(): Promise<void> {
    return this.#controller.idle();
  }

  close(): Promise<void> {
    return this.#controller.stop();
  }

  async #sync(name: string): Promise<void> {
    const schema = this.#schemaInformer.store.get(name);
    if (schema === undefined) return;
    const level = levelOf(schema);
    const want = danglingCondition(level, this.#levelInformer.store.get(level) !== undefined, new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'));
    const conditions = ((schema as { status?: { conditions?: Condition[] } }).status?.conditions ?? []);
    const have = conditions.find((c) => c.type === 'Dangling');
    if (have !== undefined && have.status === want.status && have.reason === want.reason && have.message === want.message) return;
    await this.#schemas.apply('', name, {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name }, status: { conditions: [want] },
    }, { fieldManager: flowControlConsumer, force: true }, 'status');
  }
}
