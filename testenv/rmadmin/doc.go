// Package rmadmin serves the ResourceManager's admin protocol
// (ResourceManagerAdministrationProtocol at yarn.resourcemanager.admin.address)
// for the mini cluster, over the Hadoop IPC framing of hdfs/ipc: what
// `yarn rmadmin -refreshQueues` sends, decoded byte by byte from a real
// 3.3.6 RM (testdata/refreshQueues-rpc.txt).
//
// It serves refreshQueues only: the other admin methods (refreshNodes,
// refreshSuperUserGroupsConfiguration, node labels...) answer
// RpcNoSuchMethodException-like errors, so a client using them is found
// out. Simple authentication only (no SASL, no Kerberos). A refused refresh
// answers as the recorded one: status ERROR, YarnException, errorMsg
// "java.io.IOException: Failed to re-init queues : <why>" followed by a
// server stack (the mini cluster's stack is a stand-in: one line saying so,
// not the RM's frames), errorDetail ERROR_APPLICATION.
package rmadmin
