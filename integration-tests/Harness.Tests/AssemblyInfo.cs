// One test at a time: the memory tests sum the process-wide meter and identify "their" scope as the one that
// appeared while they opened a database, and the journal tests read the whole journal of the shared server.
// On a 2-core machine parallel classes would mostly fight over the CPU anyway.
[assembly: CollectionBehavior(DisableTestParallelization = true)]
