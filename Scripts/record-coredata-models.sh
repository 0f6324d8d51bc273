#!/usr/bin/env bash
# Writes the generated Swift of each model version that wrote a store of
# ../shared/corpus/stores (STORE-LAYOUT.md §8.2) into Tests/CoreDataStoreModels/<Module>/, one
# module per version (versions of one bundle share class names), for CoreDataStoreTests.
# The list is Package.swift's `coreDataStoreModels`. Review the diff before committing.
set -euo pipefail
cd "$(dirname "$0")/.."
stores="${MODELGEN_SHARED:-../shared}/corpus/stores"
swift build --product modelgen
while IFS='|' read -r module bundle version; do
    [ -z "$module" ] && continue
    rm -f "Tests/CoreDataStoreModels/$module/$module.swift"
    .build/debug/modelgen generate "$stores/$bundle" --model-version "$version" \
        --output "Tests/CoreDataStoreModels/$module" --single-file "$module.swift"
done <<'LIST'
CDSampleModel|alemar11__CoreDataPlus/Tests/Resources/SampleModel/SampleModel.xcdatamodeld|SampleModel
CDSampleModel2|alemar11__CoreDataPlus/Tests/Resources/SampleModel/SampleModel.xcdatamodeld|SampleModel2
CDSampleModel3|alemar11__CoreDataPlus/Tests/Resources/SampleModel3/SampleModel3.xcdatamodeld|SampleModel3
CDArtsyPartner5|artsy__energy/Resources/CoreData/ArtsyPartner.xcdatamodeld|ArtsyPartner 5
CDArtsyFolio14|artsy__energy/Resources/CoreData/ArtsyPartner.xcdatamodeld|ArtsyFolio v1.4
CDArtsyFolio15|artsy__energy/Resources/CoreData/ArtsyPartner.xcdatamodeld|ArtsyFolio v1.5
CDArtsyFolio20|artsy__energy/Resources/CoreData/ArtsyPartner.xcdatamodeld|ArtsyFolio v2.0
CDArtsyFolio23|artsy__energy/Resources/CoreData/ArtsyPartner.xcdatamodeld|ArtsyFolio v2.3
CDBookmarks1|duckduckgo__BrowserServicesKit/Sources/Bookmarks/BookmarksModel.xcdatamodeld|BookmarksModel
CDBookmarks2|duckduckgo__BrowserServicesKit/Sources/Bookmarks/BookmarksModel.xcdatamodeld|BookmarksModel 2
CDBookmarks3|duckduckgo__BrowserServicesKit/Sources/Bookmarks/BookmarksModel.xcdatamodeld|BookmarksModel 3
CDBookmarks4|duckduckgo__BrowserServicesKit/Sources/Bookmarks/BookmarksModel.xcdatamodeld|BookmarksModel 4
CDBookmarks5|duckduckgo__BrowserServicesKit/Sources/Bookmarks/BookmarksModel.xcdatamodeld|BookmarksModel 5
CDSyncMetadata3|duckduckgo__BrowserServicesKit/Sources/DDGSync/SyncMetadata.xcdatamodeld|SyncMetadata 3
CDXCServer120|richardpiazza__XCServerCoreData/Resources/XCServerCoreData.xcdatamodeld|XCServerCoreData1.2.0
CDXCServer200|richardpiazza__XCServerCoreData/Resources/XCServerCoreData.xcdatamodeld|XCServerCoreData2.0.0
CDXCServer201|richardpiazza__XCServerCoreData/Resources/XCServerCoreData.xcdatamodeld|XCServerCoreData2.0.1
LIST
# The iOS app's store holds the entities of three bundles: their merged model.
bsk="$stores/duckduckgo__BrowserServicesKit/Sources"
rm -f Tests/CoreDataStoreModels/CDAppRatingPrompt/CDAppRatingPrompt.swift
.build/debug/modelgen generate --name Database --output Tests/CoreDataStoreModels/CDAppRatingPrompt \
    --single-file CDAppRatingPrompt.swift \
    "$stores/duckduckgo__iOS/DuckDuckGo/AppRatingPrompt.xcdatamodeld/AppRatingPrompt.xcdatamodel" \
    "$bsk/BrowserServicesKit/SmarterEncryption/Store/HTTPSUpgrade.xcdatamodeld/HTTPSUpgrade 3.xcdatamodel" \
    "$bsk/RemoteMessaging/CoreData/RemoteMessaging.xcdatamodeld/RemoteMessaging.xcdatamodel"
# The model of the stores Tests/TestSupport/HandBuiltCoreDataStores.swift writes by hand.
rm -f Tests/CoreDataStoreModels/CDJournal/CDJournal.swift
.build/debug/modelgen generate Tests/Fixtures/Journal.xcdatamodeld --model-version Journal \
    --output Tests/CoreDataStoreModels/CDJournal --single-file CDJournal.swift
