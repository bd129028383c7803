// The in-process controllers that run on one replica at a time (namespace,
// ServiceAccount, quota, CRD status, aggregation, garbage collectors, root CA, volume
// protection, and the simulated kubelets of --simulated-nodes): the
// replica holding the Lease kube-system/plinth-controllers runs them, as
// kube-controller-manager's replicas elect one with kube-system/kube-controller-manager.
// Plinth's lease has its own name so that a real kube-controller-manager run against
// Plinth (with --controllers turning Plinth's own off) elects its leader apart.
//
// Each term of leadership gets fresh controllers, closed when the term ends (the lease
// could not be renewed, or the server closes); a later term builds new ones.

import { computeQuotaStatus, countedResources, evaluatorFor } from '../admission/quota-usage.ts';
import { AdmissionPolicyStatusController } from '../controllers/admission-policy-status.ts';
import { ClusterRoleAggregationController } from '../controllers/clusterrole-aggregation.ts';
import { FlowSchemaStatusController } from '../controllers/flow-schema-status.ts';
import { FlowControlEnsurer } from '../controllers/flowcontrol-ensurer.ts';
import type { CrdController } from '../controllers/crd.ts';
import { GarbageCollector } from '../controllers/garbage-collector.ts';
import { NamespaceController } from '../controllers/namespace.ts';
import { PodGarbageCollector } from '../controllers/pod-gc.ts';
import { ResourceQuotaController } from '../controllers/resource-quota.ts';
import { RootCaPublisher } from '../controllers/root-ca-publisher.ts';
import { CrdApiServices } from '../controllers/crd-apiservices.ts';
import { LeaderElector, type LeaderElectorOptions } from '../controllers/runtime/index.ts';
import { ServiceAccountController } from '../controllers/service-account.ts';
import { SimulatedNodes } from '../controllers/simulated-nodes.ts';
import { SimulatedVolumes } from '../controllers/simulated-volumes.ts';
import { VolumeProtection } from '../controllers/volume-protection.ts';
import { controllerEnabled } from './controllers-flag.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import { namespaceObjects } from './admission-plugins.ts';
import type { Config } from './config.ts';

/** Where the elected replica's Lease lives. */
export const controllersLease = { namespace: 'kube-system', name: 'plinth-controllers' };

/** One controller of a term, and when in the server's start it starts. */
export interface TermController {
  /** Names it in log lines. */
  name: string;
  start(): Promise<void>;
  close(): Promise<void>;
  /**
   * `startup`: a replica that leads from its start waits for this start before it
   * serves (a namespace's default ServiceAccount exists once it answers, as before
   * election); `serving`: started once the server serves, so that its caches do not hold
   * up start-up; `loaded`: once every watch cache has loaded in the background.
   */
  startAt: 'startup' | 'serving' | 'loaded';
}

export interface LeaderControllersOptions {
  /** A fresh set of controllers for one term. */
  controllers(): TermController[];
  /** The election; undefined (--leader-elect=false) runs the controllers from start to close. */
  election: Omit<LeaderElectorOptions, 'onStartedLeading' | 'onStoppedLeading' | 'log'> | undefined;
  /** Resolve once the server serves, and once every watch cache has loaded. */
  serving: Promise<void>;
  loaded: Promise<void>;
  log: (message: string) => void;
}

interface Term {
  /** The `startup` controllers have started (never rejects). */
  ready: Promise<void>;
  close(): Promise<void>;
}

export class LeaderControllers {
  readonly elector: LeaderElector | undefined;
  readonly #opts: LeaderControllersOptions;
  #term: Term | undefined;

  constructor(opts: LeaderControllersOptions) {
    this.#opts = opts;
    this.elector = opts.election === undefined ? undefined : new LeaderElector({
      ...opts.election,
      onStartedLeading: () => {
        this.#term = this.#begin();
      },
      onStoppedLeading: async () => {
        const term = this.#term;
        this.#term = undefined;
        await term?.close();
      },
      log: opts.log,
    });
  }

  /** Whether this replica runs the controllers now. */
  get running(): boolean {
    return this.#term !== undefined;
  }

  /**
   * Campaigns (or, without election, starts the term). Resolves after the first
   * attempt to acquire the lease; when it succeeded, once the `startup` controllers started.
   */
  async start(): Promise<void> {
    if (this.elector === undefined) this.#term = this.#begin();
    else await this.elector.start();
    await this.#term?.ready;
  }

  /** Ends the term (the controllers finish their work in flight), then releases the lease. */
  async close(): Promise<void> {
    if (this.elector !== undefined) {
      await this.elector.close();
      return;
    }
    const term = this.#term;
    this.#term = undefined;
    await term?.close();
  }

  #begin(): Term {
    const controllers = this.#opts.controllers();
    let closed = false;
    const start = async (controller: TermController) => {
      if (closed) return;
      try {
        await controller.start();
      } catch (err) {
        // Closing makes a controller still starting fail its start: nothing to say then.
        if (!closed) this.#opts.log(`${controller.name}: ${(err as Error).message}`);
      }
    };
    const startAll = async (at: TermController['startAt']) => {
      await Promise.all(controllers.filter((c) => c.startAt === at).map(start));
    };
    const ready = startAll('startup');
    void ready.then(() => this.#opts.serving).then(() => startAll('serving'));
    void ready.then(() => this.#opts.loaded).then(() => startAll('loaded'));
    const log = this.#opts.log;
    return {
      ready,
      async close() {
        closed = true;
        await Promise.all(controllers.map((c) => c.close().catch((err: unknown) => log(`${c.name}: closing: ${(err as Error).message}`))));
      },
    };
  }
}

export interface ElectedControllersOptions {
  registry: ResourceRegistry;
  /** Serves CRDs on every replica; writes their status only while this one leads. */
  crdController: CrdController;
  /** What the root CA publisher puts in every namespace. */
  caPem: string;
  config: Pick<Config, 'enableGarbageCollector' | 'enableRootCaPublisher' | 'podGcQuarantineMs' | 'controllers' | 'simulatedNodes' | 'simulatedPodRunMs' | 'simulatedMaxGracePeriodMs' | 'enablePriorityAndFairness'>;
  log: (message: string) => void;
}

/**
 * A fresh set of the controllers the elected replica runs, for one term: those
 * --controllers enables (upstream's names; the CRD status writer is the API server's
 * own and always runs), and with --simulated-nodes the simulated kubelets and their
 * volume provisioner, which must be one replica's as a node has one kubelet.
 */
export function electedControllers({ registry, crdController, caPem, config, log }: ElectedControllersOptions): TermController[] {
  const store = (group: string, resource: string) => registry.lookup(group, 'v1', resource)!.store;
  const enabled = (name: string) => controllerEnabled(config.controllers, name);
  const controllers: TermController[] = [];
  const add = (name: string, startAt: TermController['startAt'], make: () => { start(): Promise<void>; close(): Promise<void> }) => {
    const c = make();
    controllers.push({ name, startAt, start: () => c.start(), close: () => c.close() });
  };
  const namespaces = store('', 'namespaces');
  // Started before the server answers: a new namespace has its default ServiceAccount, aggregated roles their rules.
  if (enabled('namespace-controller')) add('namespace controller', 'startup', () => new NamespaceController(registry, namespaces, log));
  if (enabled('serviceaccount-controller')) add('serviceaccount controller', 'startup', () => new ServiceAccountController(namespaces, store('', 'serviceaccounts'), log));
  if (enabled('clusterrole-aggregation-controller')) {
    add('clusterrole-aggregation controller', 'startup', () => new ClusterRoleAggregationController(store('rbac.authorization.k8s.io', 'clusterroles'), log));
  }
  // Every replica serves CRDs; the leader decides their names and conditions and runs their finalizer.
  controllers.push({ name: 'crd controller', startAt: 'startup', start: () => crdController.startWritingStatus(), close: () => crdController.stopWritingStatus() });
  // Quota status follows counted objects through informers (quota admission counts a quota itself when its status lags).
  if (enabled('resourcequota-controller')) {
    add('resourcequota controller', 'serving', () => new ResourceQuotaController({
      quotas: store('', 'resourcequotas'),
      counted: countedResources.map(({ group, resource }) => store(group, resource)),
      countsOnly: ({ type }) => evaluatorFor({ group: type.group, resource: type.resource }).countsOnly === true,
      objects: (gr, namespace) => namespaceObjects(registry, gr, namespace),
      computeStatus: computeQuotaStatus,
      log,
    }));
  }
  // Pods that no kubelet will finish (their node is gone, or they were never scheduled) go, as upstream's podgc.
  if (enabled('pod-garbage-collector-controller')) {
    add('pod garbage collector', 'serving', () => new PodGarbageCollector({ pods: store('', 'pods'), nodes: store('', 'nodes'), log, quarantineMs: config.podGcQuarantineMs }));
  }
  // What token volumes project as ca.crt.
  if (config.enableRootCaPublisher && enabled('root-ca-certificate-publisher-controller')) {
    add('root-ca-cert-publisher', 'serving', () => new RootCaPublisher({ namespaces, configMaps: store('', 'configmaps'), caPem, log }));
  }
  const [protectClaims, protectVolumes] = [enabled('persistentvolumeclaim-protection-controller'), enabled('persistentvolume-protection-controller')];
  if (protectClaims || protectVolumes) {
    add('volume protection', 'serving', () => new VolumeProtection({
      claims: store('', 'persistentvolumeclaims'), volumes: store('', 'persistentvolumes'), pods: store('', 'pods'), protectClaims, protectVolumes, log,
    }));
  }
  // Every version a CRD serves gets its local APIService, as kube-apiserver's autoregistration (the API server's own: always).
  add('crd autoregistration', 'serving', () => new CrdApiServices({ crds: store('apiextensions.k8s.io', 'customresourcedefinitions'), apiServices: store('apiregistration.k8s.io', 'apiservices'), log }));
  // Priority and fairness' configuration kept (upstream's config producer, the API server's own,
  // whether or not it classifies) and whether each FlowSchema's priority level exists (its
  // controller, which runs when it does).
  if (registry.lookup('flowcontrol.apiserver.k8s.io', 'v1', 'flowschemas') !== undefined) {
    const flowControl = { schemas: store('flowcontrol.apiserver.k8s.io', 'flowschemas'), levels: store('flowcontrol.apiserver.k8s.io', 'prioritylevelconfigurations'), log };
    add('priority and fairness configuration', 'serving', () => new FlowControlEnsurer(flowControl));
    if (config.enablePriorityAndFairness) add('flowschema status', 'serving', () => new FlowSchemaStatusController(flowControl));
  }
  // Policies' type checking, into their status.
  if (enabled('validatingadmissionpolicy-status-controller')) {
    add('validatingadmissionpolicy-status controller', 'serving', () => new AdmissionPolicyStatusController({
      policies: store('admissionregistration.k8s.io', 'validatingadmissionpolicies'), registry, log,
    }));
  }
  // The collector watches every resource: it starts once their caches have loaded.
  if (config.enableGarbageCollector && enabled('garbage-collector-controller')) add('garbage collector', 'loaded', () => new GarbageCollector({ registry, log }));
  if (config.simulatedNodes > 0) {
    // The nodes exist before a replica leading from its start answers; their pods start as they come.
    add('simulated nodes', 'startup', () => new SimulatedNodes({
      count: config.simulatedNodes, nodes: store('', 'nodes'), leases: store('coordination.k8s.io', 'leases'), pods: store('', 'pods'),
      podRunMs: config.simulatedPodRunMs, maxGracePeriodMs: config.simulatedMaxGracePeriodMs, log,
    }));
    add('simulated volumes', 'startup', () => new SimulatedVolumes({
      claims: store('', 'persistentvolumeclaims'), volumes: store('', 'persistentvolumes'), storageClasses: store('storage.k8s.io', 'storageclasses'), log,
    }));
  }
  return controllers;
}
