// TransferKit re-exports its value types and digests so one import gives the whole API.
@_exported import Digest
@_exported import TransferModel
