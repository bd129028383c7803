// What every verb handler is given: the request, its info, the served resource, negotiation.
import type { Negotiated } from '../../encoding/negotiate.ts';
import type { ServedResource } from '../../registry/registry.ts';
import type { ResourceRequestInfo } from '../request-info.ts';
import type { HttpRequest, HttpResponse } from '../http.ts';
import type { KubeletClient } from '../kubelet-client.ts';
import type { PodNetworkClient } from '../pod-network-client.ts';
import type { WatchStreams } from '../watch-streams.ts';

/** Everything a verb handler needs about one request. */
export interface RequestScope {
  req: HttpRequest;
  res: HttpResponse;
  info: ResourceRequestInfo;
  query: URLSearchParams;
  served: ServedResource;
  negotiated: Negotiated;
  /** Large answers may be gzip-compressed: the client takes it and APIResponseCompression is on. */
  gzip: boolean;
  /** The WatchList feature gate (sendInitialEvents). */
  watchList: boolean;
  /** The AllowUnsafeMalformedObjectDeletion feature gate: DELETE honours ignoreStoreReadErrorWithClusterBreakingPotential. */
  unsafeMalformedObjectDeletion?: boolean;
  /** The CBORServingAndStorage feature gate: CBOR request bodies and apply patches are read. */
  cbor: boolean;
  /** Registers a long-running request's stop function (ended on shutdown); returns its unregister function. */
  trackLongRunning(stop: () => void): () => void;
  /** The open watch streams, and how one whose client stops reading is ended. */
  watchStreams: WatchStreams;
  /** Authorizes `create` when an update or apply is about to create the object (throws a 403). */
  authorizeCreate?(): Promise<void>;
  /** Authorizes another verb on the request's resource (403 when denied); absent: allowed. */
  authorizeVerb?(verb: string): Promise<void>;
  /**
   * pods/exec, attach and portforward asked with another verb than create (a WebSocket's GET):
   * authorizes `create` too, as the AuthorizePodWebsocketUpgradeCreatePermission gate has
   * upstream's pod registry do (throws its 403); absent: the gate is off, or no check is due.
   */
  authorizeConnectCreate?(): Promise<void>;
  /** `--kubelet-preferred-address-types`: which of a node's addresses its kubelet is named by (subresources that would reach it). */
  kubeletAddressTypes?: readonly string[];
  /** Reaches nodes' kubelets (pods/log, nodes/proxy); absent: none is reached. */
  kubelet?: KubeletClient;
  /** Reaches pods at their IPs (pods/proxy, services/proxy); absent: none is reached. */
  podNetwork?: PodNetworkClient;
  log(message: string): void;
}
